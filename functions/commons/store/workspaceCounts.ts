import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { getItem } from './batches';
import { num } from './codec';
import { conditionally, TransactionCancelled } from './errors';
import { ItemType, keys, type Key } from './keys';
import { queryAll, type KeyRange } from './query';
import { tableName } from './table';
import { tx, type TransactItem } from './transactions';

/**
 * How many items of one kind a workspace holds (its labels, its webhooks), kept in one item beside them
 * and moved in the same transaction as each item that comes or goes: what holds a workspace's limit
 * against concurrent creates, where reading the items and then writing would let two creates both in.
 * A workspace whose items were made before they were counted starts its count from the items it holds,
 * in the transaction of its next create (two such first counts at once: one fails, the caller reads again).
 */
export interface CountedKind {
  /** The count item's key, beside the items it counts. */
  key: (ws: string) => Key;
  type: string;
  /** The items counted, as a range of keys (read once, for a first count). */
  range: (ws: string) => Omit<KeyRange, 'index'>;
  /** What a kept count must also hold to be moved (a count that may be sealed: labelTally.ts). */
  open?: string;
}

export const countedKinds = {
  webhooks: {
    key: keys.webhookCount,
    type: ItemType.webhookCount,
    range: (ws: string) => ({ partition: keys.webhookCollection(ws), sortPrefix: keys.webhookSkPrefix }),
  },
} satisfies Record<string, CountedKind>;

/** The kept count, or undefined where none is kept yet. */
async function keptCount(kind: CountedKind, ws: string): Promise<number | 'closed' | undefined> {
  const item = await getItem(kind.key(ws));
  if (item && kind.open && item.sealed !== undefined) return 'closed';
  return item ? num(item, 'count') : undefined;
}

/**
 * The part for a count found sealed (moved since the caller chose it: labelTally.ts): it fails the transaction, so the
 * caller reads again, and goes by where the count is now.
 */
const closedPart = (kind: CountedKind, ws: string): TransactItem => tx.check(kind.key(ws), { condition: kind.open ?? '' });

/**
 * What one request knows of a workspace's count across its tries. Its first try reads nothing where the guess holds as a
 * rule: its part guesses the count kept, open and (counting in) under the limit, in its condition, as it is but for a full
 * workspace or a count on the move (labelTally.ts). Counting in, that is where this instance has seen the count kept
 * (`seenKept`): elsewhere (a workspace new to the instance, its first count perhaps still to start) it reads the count
 * first, since a guess there would be a transaction written in vain, charged, and on a busy partition one that takes the
 * units its own next try needs. Counting out always guesses first: the item going was counted when it was made, but in
 * a workspace older than counts. A try whose count part failed (`missed`) makes every later try read the count first,
 * and go by what it finds.
 */
export interface CountTries {
  /** The part that counts one more in, refused once the workspace holds `max`; `full` (read) when it already does. */
  in: (kind: CountedKind, ws: string, max: number) => Promise<TransactItem | 'full'>;
  /** The part that counts one out. */
  out: (kind: CountedKind, ws: string) => Promise<TransactItem>;
  /** After a try that failed: whether its count part did (the next try reads the count; the instance forgets it kept). */
  missed: (error: unknown) => boolean;
  /** A try's write: its failure, passed on, is first looked at by `missed`. */
  tried: <T>(write: () => Promise<T>) => Promise<T>;
}

export function countTries(): CountTries {
  let read = false;
  /** The count the last part moved: kept once a write with it succeeds. */
  let moved: { kind: CountedKind; ws: string } | undefined;
  const missed = (error: unknown) => {
    const failed = error instanceof TransactionCancelled && error.conditionFailed('count');
    read ||= failed;
    if (failed && moved) forgetKept(moved.kind, moved.ws);
    return failed;
  };
  const guess = (kind: CountedKind, ws: string) => !read && seenKept(kind, ws) && !fullLately(kind, ws);
  return {
    in: async (kind, ws, max) => {
      moved = { kind, ws };
      return guess(kind, ws) ? keptIn(kind, ws, max) : countInPart(kind, ws, max);
    },
    out: async (kind, ws) => {
      moved = { kind, ws };
      return read ? countOutPart(kind, ws) : keptOut(kind, ws);
    },
    missed,
    tried: async (write) => {
      try {
        const written = await write();
        if (moved) sawKept(moved.kind, moved.ws);
        return written;
      } catch (error) {
        missed(error);
        throw error;
      }
    },
  };
}

/**
 * Counts this instance found full lately, and until when it goes by that: a create there reads the count first, so a
 * client that keeps trying a full workspace costs a read each time, not a transaction (and, for a label, an id).
 */
const FULL_FOR_MS = 60_000;
const REMEMBERED = 1_000;
const foundFull = new Map<string, number>();
const fullKey = (kind: CountedKind, ws: string) => {
  const { PK, SK } = kind.key(ws);
  return `${tableName()}\u0000${PK}\u0000${SK}`;
};

/** Adds `key` to `memory` as its newest entry; the oldest goes first, so it never holds more than REMEMBERED. */
function remember<V>(memory: Map<string, V>, key: string, value: V): void {
  memory.delete(key);
  // A Map keeps its order of insertion.
  if (memory.size >= REMEMBERED) memory.delete(memory.keys().next().value!);
  memory.set(key, value);
}

/**
 * Counts this instance has seen kept and open (read so, or moved in by a create that succeeded): where its next create
 * guesses. A count is never removed while its workspace's items are; one sealed since (moved: labelTally.ts) fails the
 * guess's condition, and is forgotten.
 */
const keptCounts = new Map<string, true>();
const seenKept = (kind: CountedKind, ws: string) => keptCounts.has(fullKey(kind, ws));
const sawKept = (kind: CountedKind, ws: string) => remember(keptCounts, fullKey(kind, ws), true);
const forgetKept = (kind: CountedKind, ws: string) => keptCounts.delete(fullKey(kind, ws));

/** What this instance remembers of counts, forgotten: as a new instance starts (tests run a request both ways). */
export function forgetCounts(): void {
  keptCounts.clear();
  foundFull.clear();
}

function fullLately(kind: CountedKind, ws: string): boolean {
  const until = foundFull.get(fullKey(kind, ws));
  return until !== undefined && Date.now() < until;
}

function sawFull(kind: CountedKind, ws: string, full: boolean): void {
  const key = fullKey(kind, ws);
  if (full) remember(foundFull, key, Date.now() + FULL_FOR_MS);
  else foundFull.delete(key);
}

/** A kept count's part that counts one more in: its condition fails where none is kept, it is full, or it is closed. */
const keptIn = (kind: CountedKind, ws: string, max: number): TransactItem =>
  tx.update(kind.key(ws), 'ADD #count :one', {
    condition: openAnd(kind, '#count < :max'),
    names: { '#count': 'count' },
    values: { ':one': 1, ':max': max },
  });

/** A kept count's part that counts one out: its condition fails where none is kept (an ADD would start one at -1) or it is closed. */
const keptOut = (kind: CountedKind, ws: string): TransactItem =>
  tx.update(kind.key(ws), 'ADD #count :minus', {
    condition: openAnd(kind, 'attribute_exists(#count)'),
    names: { '#count': 'count' },
    values: { ':minus': -1 },
  });

/** The transaction part that counts one more in, read first: `full` when the workspace already holds `max`. */
export async function countInPart(kind: CountedKind, ws: string, max: number): Promise<TransactItem | 'full'> {
  const kept = await keptCount(kind, ws);
  if (kept === 'closed') return closedPart(kind, ws); // its failure (`missed`) forgets it
  if (kept !== undefined) {
    sawKept(kind, ws);
    const full = kept >= max;
    sawFull(kind, ws, full);
    return full ? 'full' : keptIn(kind, ws, max);
  }
  const held = (await queryAll(kind.range(ws), { keysOnly: true })).length;
  if (held >= max) {
    // Kept from now on (a workspace over the limit since before the limit), so no later create counts again.
    await conditionally(
      db.send(new PutCommand({ TableName: tableName(), Item: countItem(kind, ws, held), ConditionExpression: 'attribute_not_exists(PK)' })),
    );
    sawFull(kind, ws, true);
    return 'full';
  }
  return firstCount(kind, ws, held + 1);
}

/**
 * The transaction part (`count`) that counts one out. Where no count is kept yet it starts one, from the
 * items held (the one going among them), as a create does: a delete and a first create at once cannot
 * both start it, so neither count misses the other's item.
 */
async function countOutPart(kind: CountedKind, ws: string): Promise<TransactItem> {
  const kept = await keptCount(kind, ws);
  if (kept === 'closed') return closedPart(kind, ws); // its failure (`missed`) forgets it
  if (kept !== undefined) {
    sawKept(kind, ws);
    return keptOut(kind, ws);
  }
  return firstCount(kind, ws, (await queryAll(kind.range(ws), { keysOnly: true })).length - 1);
}

const openAnd = (kind: CountedKind, condition: string) => (kind.open ? `${condition} AND ${kind.open}` : condition);

/** A count's first value, written only where no count is yet (two first counts at once: one fails, and its caller reads again). */
function firstCount(kind: CountedKind, ws: string, count: number): TransactItem {
  return tx.put(countItem(kind, ws, count), { condition: 'attribute_not_exists(PK)' });
}

function countItem(kind: CountedKind, ws: string, count: number) {
  return { ...kind.key(ws), type: kind.type, workspace: ws, count };
}
