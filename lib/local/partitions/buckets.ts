import type { PartitionLimits } from './limits';

/** Which of a partition's two allowances a request draws on. */
export type Capacity = 'read' | 'write';

/** One partition a request reads or writes: a partition key value of a table, or of one of its indexes. */
export interface Partition {
  table: string;
  /** The index's name; absent for the table itself. */
  index?: string;
  /** The partition key value, as text (a string's characters, a number's digits, a binary's base64). */
  key: string;
}

/** What a request draws on one partition: its capacity and the units it consumes there. */
export interface Draw extends Partition {
  capacity: Capacity;
  units: number;
  /**
   * The sort key (as text) of the one item of the table it draws on, when it draws on one: DynamoDB splits
   * a hot partition by sort key, but never an item, which keeps the partition's limits however far its key splits.
   */
  item?: string;
}

/** The first empty bucket a request would draw on: the draw, and whether it is its item's (an item cannot be split). */
export type Empty = Draw & { onItem: boolean };

/** Above this many buckets, the full ones (those a partition left alone long enough) are dropped. */
const SWEEP_ABOVE = 10_000;

/**
 * A token bucket per partition and capacity, as DynamoDB keeps one per partition: refilled at the
 * limit's units per second, holding at most `burst` seconds of them, full when first used. A request
 * goes when none of its buckets is empty, and is charged afterwards what it consumed (a read's size is
 * known only from its answer), so a bucket may go below zero: the partition is then in debt, and
 * refused until the refill has paid it off. A key that split for heat (`split` partitions: limits.ts)
 * has that many times the units; each item of it keeps one partition's, in a bucket of its own.
 */
export class PartitionBuckets {
  private readonly buckets = new Map<string, { units: number; at: number }>();
  /** Set by emptyFrom: buckets first used from then on start empty at that instant, not full. */
  private emptySince: number | undefined;

  constructor(
    private readonly limits: PartitionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Every bucket empty `agoMs` before now, as a partition's is once a load above its rate has spent its burst: a
   * measure of a key's rate judged from here sees the rate alone, not the burst a full bucket would add to its first
   * second (`agoMs`: the refill a partition's first request of a paced load finds, one of its periods).
   */
  emptyFrom(agoMs = 0): void {
    this.buckets.clear();
    this.emptySince = this.now() - agoMs;
  }

  /** The units a partition has left now (below zero: its debt). */
  available(partition: Partition, capacity: Capacity): number {
    return this.refilled(bucketId(partition, capacity)).units;
  }

  /** The first of `draws` whose bucket (its partition's, or its item's) is empty, or undefined when the request may go. */
  emptyAmong(draws: readonly Draw[]): Empty | undefined {
    for (const draw of draws) {
      if (this.available(draw, draw.capacity) <= 0) return { ...draw, onItem: false };
      if (this.itemsApart(draw) && this.refilled(itemBucketId(draw)).units <= 0) return { ...draw, onItem: true };
    }
    return undefined;
  }

  /** Takes what each draw consumed from its bucket, and from its item's. */
  charge(draws: readonly Draw[]): void {
    for (const draw of draws) {
      this.refilled(bucketId(draw, draw.capacity)).units -= draw.units;
      if (this.itemsApart(draw)) this.refilled(itemBucketId(draw)).units -= draw.units;
    }
    if (this.buckets.size > SWEEP_ABOVE) this.sweep();
  }

  /** Whether a draw's item has a bucket apart: only on a split key (unsplit, an item's bucket could never run out before its key's). */
  private itemsApart(draw: Draw): boolean {
    return draw.item !== undefined && this.limits.split > 1;
  }

  private rate(id: string): number {
    const one = id.startsWith('read ') || id.startsWith('item read ') ? this.limits.rcu : this.limits.wcu;
    return id.startsWith('item ') ? one : one * this.limits.split;
  }

  private refilled(id: string): { units: number; at: number } {
    const now = this.now();
    const capacity = this.rate(id) * this.limits.burstSeconds;
    const bucket =
      this.buckets.get(id) ?? (this.emptySince === undefined ? { units: capacity, at: now } : { units: 0, at: this.emptySince });
    bucket.units = Math.min(capacity, bucket.units + ((now - bucket.at) / 1000) * this.rate(id));
    bucket.at = now;
    this.buckets.set(id, bucket);
    return bucket;
  }

  private sweep(): void {
    for (const id of [...this.buckets.keys()])
      if (this.refilled(id).units >= this.rate(id) * this.limits.burstSeconds) this.buckets.delete(id);
  }
}

function bucketId(p: Partition, capacity: Capacity): string {
  return `${capacity} ${JSON.stringify([p.table, p.index ?? '', p.key])}`;
}

const itemBucketId = (d: Draw) => `item ${d.capacity} ${JSON.stringify([d.table, d.index ?? '', d.key, d.item])}`;
