import { type ActivityFollower, followActivities, type FollowOptions, type FollowParams } from './activity.js';
import { OPERATIONS, type Operations } from './generated.js';
import { type Answer, type CallOptions, type Config, send } from './http.js';
import { PagePromise } from './pages.js';
import type { OperationSpec } from './spec.js';

export interface ClientOptions {
  /** The API's base URL, e.g. `https://api.example.com/prod` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A bearer token (`pls_...`). */
  token: string;
  /** The `company_slug` of every call that does not give its own. */
  workspace?: string;
  /** Each attempt's time limit (default 60 s). */
  timeoutMs?: number;
  /** Retries after a network failure, a timeout, 408, 429, 500, 502, 503 or 504 (default 2; 0: none); a POST only under its Idempotency-Key. */
  maxRetries?: number;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch;
}

type Params<K extends keyof Operations> = Operations[K]['params'];
/** What a call resolves to: the answer's body, and its entity tag where the route answers one. */
export type Result<K extends keyof Operations> = Operations[K]['answer'] &
  (Operations[K]['tagged'] extends true ? { etag: string | undefined } : unknown);
/** An operation whose parameters are all optional may be called without any. */
type Args<K extends keyof Operations> =
  Record<never, never> extends Params<K> ? [params?: Params<K>, options?: CallOptions] : [params: Params<K>, options?: CallOptions];
type Method<K extends keyof Operations> = (
  ...args: Args<K>
) => [Operations[K]['item']] extends [never] ? Promise<Result<K>> : PagePromise<Result<K>, Operations[K]['item']>;

/** One method per route, named after it (`listProjects`, `createProject`, ...), and `followActivities`. */
export type Client = { [K in keyof Operations]: Method<K> } & {
  followActivities(params: FollowParams, options?: FollowOptions): ActivityFollower;
};

const shape = (spec: OperationSpec, answer: Answer) =>
  spec.tagged ? { ...(answer.body as object), etag: answer.etag } : (answer.body as object);

/** A client of the API: see the package's README. */
export function createClient(options: ClientOptions): Client {
  if (!options.baseUrl || !options.token) throw new TypeError('createClient needs baseUrl and token');
  const config: Config = {
    baseUrl: options.baseUrl,
    token: options.token,
    workspace: options.workspace,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
  };
  const client: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(OPERATIONS) as [string, OperationSpec][]) {
    client[name] = (params: Record<string, unknown> = {}, callOptions: CallOptions = {}) => {
      const call = (extra: Record<string, unknown>) => send(config, spec, { ...params, ...extra }, callOptions).then((a) => shape(spec, a));
      // The pages after the first follow its cursor (a page number would contradict it).
      return spec.pages ? new PagePromise((cursor) => call(cursor ? { cursor, page: undefined } : {})) : call({});
    };
  }
  client.followActivities = (params: FollowParams, followOptions: FollowOptions = {}) =>
    followActivities(
      (query, ifNoneMatch, signal) => send(config, OPERATIONS.listActivities, query, { ifNoneMatch, signal }),
      params,
      followOptions,
    );
  return client as Client;
}
