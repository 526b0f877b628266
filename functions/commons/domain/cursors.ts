import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationFailed } from './errors';
import { nestsDeeperThan } from './jsonDepth';

/**
 * Opaque pagination cursors: the DynamoDB key to continue after, bound to the query it came from.
 * A cursor is base64url JSON `{ f, k }`: `k` the continuation key, `f` a keyed MAC (HMAC-SHA256 with
 * CURSOR_KEY) of the query's fingerprint (workspace, access pattern, parameters) and of `k`. Any edit
 * of a cursor, a cursor of another query or workspace, or one forged without the key is a 422 before
 * anything is read; the key's shape is checked as well. Key-based continuation is stable under
 * concurrent inserts: nothing is skipped or repeated.
 */
export interface CursorScope {
  /** Identifies the query: workspace, access pattern, parameters. */
  fingerprint: string[];
  /** The key attributes a continuation key of this query has, and the partition value it must carry. */
  keyNames: readonly string[];
  /** Further members a cursor of this query may carry (strings too), beside its key. */
  optionalNames?: readonly string[];
  partition: { name: string; value: string };
  /** Where the query has a begins_with condition: a start key outside it is rejected by DynamoDB. */
  sortPrefix?: { name: string; prefix: string };
}

type StartKey = Record<string, string>;

/**
 * The MAC key: CURSOR_KEY (the stack sets it from a generated secret; `npm start` from one kept in
 * .data/), or, when unset, a random key of this process: cursors then only work within it.
 */
const KEY = process.env.CURSOR_KEY ? Buffer.from(process.env.CURSOR_KEY) : randomBytes(32);

function tagOf(scope: CursorScope, keyJson: string): string {
  return createHmac('sha256', KEY).update(JSON.stringify(scope.fingerprint)).update('\n').update(keyJson).digest('base64url').slice(0, 22);
}

export function encodeCursor(scope: CursorScope, lastKey: Record<string, unknown> | undefined): string | null {
  if (!lastKey) return null;
  const k = JSON.stringify(lastKey);
  return Buffer.from(`{"f":${JSON.stringify(tagOf(scope, k))},"k":${k}}`).toString('base64url');
}

export function decodeCursor(scope: CursorScope, cursor: string | undefined): StartKey | undefined {
  if (cursor === undefined) return undefined;
  const rule = 'is not a cursor returned by this query; pass meta.next_cursor as it came, or leave cursor out for the first page';
  const invalid = ValidationFailed.of('cursor', rule, cursor);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let parsed: unknown;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // A cursor nests 2 levels ({f, k: {...}}); deeper is not ours, and is refused before anything walks it.
  if (nestsDeeperThan(text, 2)) throw invalid;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid;
  }
  if (!isRecord(parsed) || typeof parsed.f !== 'string' || !isRecord(parsed.k)) throw invalid;
  const expected = Buffer.from(tagOf(scope, JSON.stringify(parsed.k)));
  const given = Buffer.from(parsed.f);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  // Authentic, so it came from this query; the checks below guard against a leaked key or a bug.
  const key = parsed.k;
  const names = Object.keys(key);
  const allowed = [...scope.keyNames, ...(scope.optionalNames ?? [])];
  if (!names.every((n) => allowed.includes(n) && typeof key[n] === 'string' && key[n] !== '')) throw invalid;
  if (!scope.keyNames.every((n) => names.includes(n))) throw invalid;
  if (key[scope.partition.name] !== scope.partition.value) throw invalid;
  if (scope.sortPrefix && !(key[scope.sortPrefix.name] as string).startsWith(scope.sortPrefix.prefix)) throw invalid;
  return key as StartKey;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
