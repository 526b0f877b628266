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
    byStatus: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** Projects by normalized name within a workspace (case-insensitive prefix search). */
    byName: { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  },
} as const;

export type IndexName = keyof typeof TABLE.indexes;

export const DEFAULT_TABLE_NAME = 'project-label-service';

export function tableName(): string {
  return process.env.TABLE_NAME || DEFAULT_TABLE_NAME;
}
