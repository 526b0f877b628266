import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import type { Item } from './query';
import { TABLE } from './table';
import { allSettled } from './settled';

/** How far one page of a merged read goes at most: then it answers what it has, and where to go on. */
export interface MergeBudget {
  /** Queries a page makes at most. */
  calls: number;
  /** Read units (as DynamoDB reports them), checked between rounds: a page reads at most this and one more round. */
  units: number;
  /** Items a filtered round evaluates, shared by the partitions it reads (a call each). */
  filteredRound: number;
}

/** One range read across several partitions of the table (a key's shards), as one in key order. */
export interface MergedRange {
  /** The Query of every partition (`#pk = :pk` in its key condition, `:pk` bound to each), without start and limit. */
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>;
  partitions: readonly string[];
  descending: boolean;
  /** Whether a filter leaves items out (then its rounds share the budget's `filteredRound`). */
  filtering: boolean;
  budget: MergeBudget;
}

interface Reader {
  partition: string;
  /** Where its next read starts (after this key); undefined once it has read everything. */
  start: Item | undefined;
  done: boolean;
}

/**
 * One page of every partition read in key order and merged, `after` the sort key a cursor carries (the same in every
 * partition: their sort keys order one sequence). A partition is read on only while it holds the page back (its last
 * read key is the nearest to the start), so an unfiltered page costs about one read per partition. `next` is the sort
 * key the following page starts after, or undefined when nothing follows.
 */
export async function readMerged(range: MergedRange, limit: number, after?: string): Promise<{ items: Item[]; next?: string }> {
  const { input, budget } = range;
  const shards = range.partitions.length;
  // Filtered, a round evaluates `filteredRound` items in all (or a page's worth, if more), shared by the partitions.
  const perCall = range.filtering ? Math.ceil(Math.max(limit + 1, budget.filteredRound) / shards) : limit + 1;
  // Unfiltered, each partition holds about its share of a page: read that (and a margin) first, more only where it falls short.
  const firstCall = range.filtering || shards === 1 ? perCall : Math.ceil(((limit + 1) / shards) * 1.5) + 1;
  const readers: Reader[] = range.partitions.map((partition) => ({
    partition,
    start: after === undefined ? undefined : { [TABLE.partitionKey]: partition, [TABLE.sortKey]: after },
    done: false,
  }));
  const found: Item[] = [];
  let calls = 0;
  let units = 0;
  const read = async (r: Reader, size: number) => {
    calls++;
    const out = await db.send(
      new QueryCommand({
        ...input,
        ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':pk': r.partition },
        Limit: size,
        ExclusiveStartKey: r.start,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    units += out.ConsumedCapacity?.CapacityUnits ?? 0;
    found.push(...(out.Items ?? []));
    r.start = out.LastEvaluatedKey;
    r.done = r.start === undefined;
  };
  const sk = (item: Item | undefined) => item![TABLE.sortKey] as string;
  const nearer = (a: string, b: string) => (range.descending ? a > b : a < b);
  await allSettled(readers.map((r) => read(r, firstCall)));
  for (;;) {
    const open = readers.filter((r) => !r.done);
    // Every item up to the open partitions' nearest read key is known: the others are read past it.
    const boundary = open
      .map((r) => sk(r.start))
      .reduce<string | undefined>((b, k) => (b === undefined || nearer(k, b) ? k : b), undefined);
    const known = found
      .filter((item) => boundary === undefined || sk(item) === boundary || nearer(sk(item), boundary))
      .sort((a, b) => (nearer(sk(a), sk(b)) ? -1 : 1));
    if (known.length > limit) return { items: known.slice(0, limit), next: sk(known[limit - 1]) };
    if (boundary === undefined) return { items: known };
    if (calls >= budget.calls || units >= budget.units) return { items: known, next: boundary };
    // Filtered, the partitions holding the page back share a whole round (all of it, when one alone does: a key whose items
    // are in one of its shards is read as one partition would be). Unfiltered, each is read for what the page still lacks
    // at most (each of its items is nearer than the others' next).
    const holding = open.filter((r) => sk(r.start) === boundary);
    const more = range.filtering
      ? Math.ceil(Math.max(limit + 1, budget.filteredRound) / holding.length)
      : Math.max(firstCall, limit + 1 - known.length);
    await allSettled(holding.map((r) => read(r, more)));
  }
}
