import { createHash } from 'node:crypto';
import { ValidationFailed } from './errors';

/**
 * Opaque pagination cursors: the DynamoDB key to continue after, bound to the query it came from
 * (a fingerprint of workspace, index and parameters). A cursor that does not decode, belongs to
 * another query or workspace, or points outside the query's partition is a 422, never a 500.
 * Key-based continuation is stable under concurrent inserts: nothing is skipped or repeated.
 */
export interface CursorScope {
  /** Identifies the query: workspace, access pattern, parameters. */
  fingerprint: string[];
  /** The key attributes a continuation key of this query has, and the partition value it must carry. */
  keyNames: readonly string[];
  partition: { name: string; value: string };
  /** Where the query has a begins_with condition: a start key outside it is rejected by DynamoDB. */
  sortPrefix?: { name: string; prefix: string };
}

type StartKey = Record<string, string>;

function fingerprintOf(scope: CursorScope): string {
  return createHash('sha256').update(JSON.stringify(scope.fingerprint)).digest('base64url').slice(0, 16);
}

export function encodeCursor(scope: CursorScope, lastKey: Record<string, unknown> | undefined): string | null {
  if (!lastKey) return null;
  return Buffer.from(JSON.stringify({ f: fingerprintOf(scope), k: lastKey })).toString('base64url');
}

export function decodeCursor(scope: CursorScope, cursor: string | undefined): StartKey | undefined {
  if (cursor === undefined) return undefined;
  const invalid = ValidationFailed.of('cursor', 'is not a cursor returned by this query (meta.next_cursor)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!isRecord(parsed) || parsed.f !== fingerprintOf(scope) || !isRecord(parsed.k)) throw invalid;
  const key = parsed.k;
  const names = Object.keys(key);
  if (names.length !== scope.keyNames.length || !scope.keyNames.every((n) => typeof key[n] === 'string')) throw invalid;
  if (key[scope.partition.name] !== scope.partition.value) throw invalid;
  if (scope.sortPrefix && !(key[scope.sortPrefix.name] as string).startsWith(scope.sortPrefix.prefix)) throw invalid;
  return key as StartKey;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
