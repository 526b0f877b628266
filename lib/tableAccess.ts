import type { Route } from '#http/route';
import { keys } from '#store/keys';
import type { IndexName } from '#store/table';

/**
 * What each function may do to the table, declared once: the deployed IAM policies are written from it
 * (lib/cdk: `dynamodb:LeadingKeys` conditions on the partitions it names) and the local stack holds every
 * function to it (lib/local/tableAccess.ts), so the whole test suite runs under the deployed policies.
 * No function may Scan; none but the authorizer reads token items (`TOKEN#`); only the routes that take
 * an Idempotency-Key reach the key partitions.
 */
type PartitionKind = keyof typeof keys.partitionPrefixes;

export interface TableAccess {
  /** The collections whose partitions it may reach. */
  partitions: readonly PartitionKind[];
  /** Whether it may write (put, update, delete) as well as read. */
  write: boolean;
  /** The indexes it may query (by their names in store/table.ts), none where empty. */
  indexes: readonly IndexName[];
  /** The only DynamoDB operations it makes, where fewer than every read (and write) operation. */
  operations?: readonly string[];
}

/** A route's access: a webhook route's collections, or the projects and labels'; the key partitions for a POST. */
export function routeTableAccess(route: Pick<Route, 'method' | 'path' | 'access'>): TableAccess {
  if (route.access === 'none') return { partitions: [], write: false, indexes: [] };
  const room: PartitionKind[] = route.path.startsWith('/webhook')
    ? ['workspace', 'webhook']
    : route.path.startsWith('/activities')
      ? ['workspace', 'activity']
      : ['workspace', 'project', 'label'];
  return {
    partitions: route.method === 'POST' ? [...room, 'idempotency'] : room,
    write: route.access === 'write',
    // The projects' indexes (a workspace's projects by status and by name): only the room that keeps projects queries them.
    indexes: room.includes('project') ? ['byStatus', 'byName'] : [],
  };
}

/** The functions no request invokes. */
export const CONSUMER_TABLE_ACCESS = {
  authorizer: { partitions: ['token'], write: false, indexes: [], operations: ['GetItem'] },
  'stream-processor': { partitions: ['workspace', 'project', 'label', 'receipt', 'activity'], write: true, indexes: [] },
  'inbound-consumer': { partitions: ['workspace', 'project', 'label', 'receipt'], write: true, indexes: [] },
  'webhook-deliverer': {
    partitions: ['workspace', 'webhook'],
    write: true,
    // The due index, which its sweep reads (every workspace's overdue deliveries, by their names only).
    indexes: ['byDue'],
    operations: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
  },
} as const satisfies Record<string, TableAccess>;

/** The partition key patterns `dynamodb:LeadingKeys` takes for these partitions. */
export function leadingKeyPatterns(access: TableAccess): string[] {
  return access.partitions.map((p) => `${keys.partitionPrefixes[p]}*`);
}

/** Whether `partitionKey` is one of the partitions the access reaches. */
export function reaches(access: TableAccess, partitionKey: string): boolean {
  return access.partitions.some((p) => partitionKey.startsWith(keys.partitionPrefixes[p]));
}
