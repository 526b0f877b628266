/**
 * The single table's physical definition: key schema and indexes. Read by the local bootstrap
 * (`lib/local/database.ts`) and by the CDK stack, so both always create the same table.
 */
export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Items with this attribute (epoch seconds) expire: short-lived claims, detach notes, stream receipts. */
  timeToLive: 'ttl',
  /** The table's stream: every change with its before and after images, read by the stream processor. */
  stream: 'NEW_AND_OLD_IMAGES',
  indexes: {
    /** Projects by status within a workspace. */
    byStatus: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
    /** Projects by normalized name within a workspace (case-insensitive prefix search). */
    byName: { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'ALL' },
    /**
     * Webhook deliveries with an automatic attempt to come, by when it is due, over a few shards (the
     * sweeper's: webhooks/sweeper.ts). Sparse and kept by the writes a delivery makes anyway: an item is
     * in it while it has `next_attempt_at`, so only a schedule set, moved or ended writes it; it
     * carries the delivery's names, not its payload.
     */
    byDue: {
      name: 'GSI3',
      partitionKey: 'due_shard',
      sortKey: 'next_attempt_at',
      projection: ['workspace', 'webhook_id', 'id'],
    },
  },
} as const satisfies { indexes: Record<string, TableIndex> } & Record<string, unknown>;

/** One global secondary index: its keys, and what it carries (every attribute, or those named besides the keys). */
export interface TableIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'ALL' | readonly string[];
}

export type IndexName = keyof typeof TABLE.indexes;

const DEFAULT_TABLE_NAME = 'project-label-service';

export function tableName(): string {
  return process.env.TABLE_NAME || DEFAULT_TABLE_NAME;
}
