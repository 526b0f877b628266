import { sha256Url } from '#domain/digest';
import { changedSinceRead, type Precondition } from '#domain/errors';

/**
 * Entity tags of single resources (a project, a label) and the conditional requests they allow.
 *
 * The tag is strong and names the representation itself: a hash of the JSON `data` a GET answers,
 * so it changes whenever anything shown changes (a rename, a recolor, a project's stats moving as
 * tasks come and go) and never otherwise. An update's answer carries the tag of what it wrote.
 *
 * - `If-None-Match` on a GET: 304, no body, when the tag (or `*`) matches (weak comparison, RFC 9110).
 * - `If-Match` on a PUT or DELETE: 412 unless the resource's current tag is listed (or `*` is),
 *   compared strongly; the write is then conditional on the item's revision as read, so a change
 *   that lands between the check and the write is a 412 too, never overwritten.
 * - `If-None-Match` on a PUT or DELETE is ignored: neither ever creates the resource it names.
 */

/** The strong entity tag of a representation (`"` + 27 base64url characters of its SHA-256 + `"`). */
export function etagOf(data: unknown): string {
  return `"${sha256Url(JSON.stringify(data)).slice(0, 27)}"`;
}

/** The entity tags of an If-Match / If-None-Match value: `*`, or each quoted tag (weak ones marked). */
function parseTags(header: string): '*' | { tag: string; weak: boolean }[] {
  if (header.trim() === '*') return '*';
  const tags: { tag: string; weak: boolean }[] = [];
  for (const m of header.matchAll(/(W\/)?("[^"]*")/g)) tags.push({ tag: m[2]!, weak: m[1] !== undefined });
  return tags;
}

/** If-None-Match: true when the client's copy is current (answer 304). Weak comparison. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = parseTags(ifNoneMatch);
  return tags === '*' || tags.some((t) => t.tag === etag);
}

/**
 * If-Match as a check of the current representation, for the domain to run on what it read before
 * writing: a function that throws 412 unless the representation `view` makes of the record matches
 * (strong comparison: a weak tag never does). Undefined, no condition, when the request has no
 * If-Match or `*`: `*` holds whenever the resource exists, and a resource that does not is a 404
 * before any precondition (RFC 9110 13.2.2).
 */
export function ifMatchCheck<R>(ifMatch: string | undefined, view: (record: R) => unknown): Precondition<R> | undefined {
  if (ifMatch === undefined) return undefined;
  const tags = parseTags(ifMatch);
  if (tags === '*') return undefined;
  return (record) => {
    const current = etagOf(view(record));
    if (!tags.some((t) => !t.weak && t.tag === current)) throw changedSinceRead();
  };
}
