import { createHash } from 'node:crypto';

/** A stable spread of ids over `n` shards (at most 256): the first byte of the id's SHA-256. */
export function shardOf(id: string, n: number): number {
  return createHash('sha256').update(id).digest()[0]! % n;
}
