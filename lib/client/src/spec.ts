/** How one operation is sent (the generated table, generated.ts, holds one per route). */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The route's path, `{name}` for each path parameter. */
  path: string;
  /** Where each parameter goes. */
  params: { path: readonly string[]; query: readonly string[]; body: readonly string[] };
  /** It pages by cursor (`meta.next_cursor`): a `for await` walks every page. */
  pages: boolean;
  /** Its answer carries an entity tag (`ETag`), returned as `etag`. */
  tagged: boolean;
  /** It takes an `Idempotency-Key`: the client sends one, the same on every attempt, so that it may retry. */
  idempotent: boolean;
}
