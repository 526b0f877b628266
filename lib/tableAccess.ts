import type { Route } from '#http/route';
import { keys } from '#store/keys';
import type { IndexName } from '#store/table';

/**
 * What each function may do to the table, declared once: the deployed IAM policies are written from it
 * (lib/cdk: `dynamodb:LeadingKeys` conditions on the partitions it names, and on the partitions of each
 * index it queries) and the local stack holds every function to it (lib/local/tableAccess.ts), so the
 * whole test suite runs under the deployed policies; docs/architecture.md shows it as a table (a test
 * holds that table to this file). No function may Scan; none but the authorizer reads token items
 * (`TOKEN#`); only the routes that take an Idempotency-Key reach the key partitions; the webhooks room's
 * partitions (`HOOKS#`, `WEBHOOK#`) are reached by its own functions alone.
 */
type PartitionKind = keyof typeof keys.partitionPrefixes;

export interface TableAccess {
  /** The collections whose partitions it may reach (write them too, where `write`). */
  partitions: readonly PartitionKind[];
  /** Whether it may write (put, update, delete) as well as read its `partitions`. */
  write: boolean;
  /** Collections it may only read, beside `partitions`. */
  reads?: readonly PartitionKind[];
  /** The indexes it may query (by their names in store/table.ts), none where empty. */
  indexes: readonly IndexName[];
  /** The only DynamoDB operations it makes, where fewer than every read (and write) operation. */
  operations?: readonly string[];
  /** Collections it may only add to and read by key (COUNT_OPERATIONS): a route's workspace counts (domain/workspaceRateLimits.ts). */
  counts?: readonly PartitionKind[];
}

/** The webhook routes that check a project filter against the workspace's projects: they read its collection. */
const READS_PROJECTS = new Set(['create-webhook', 'update-webhook']);
/** The routes that query an index (a workspace's projects by status, by name); no other route may query one. */
const QUERIES: Readonly<Record<string, readonly IndexName[]>> = {
  'list-projects': ['byStatus', 'byName'],
  search: ['byName'],
  // The taken copy names of a project's name, to number its copy.
  'duplicate-project': ['byName'],
};

/** A route's access: its room's collections (the webhooks', the history's, or the projects and labels'); the key partitions for a POST. */
export function routeTableAccess(route: Pick<Route, 'name' | 'method' | 'path' | 'access'>): TableAccess {
  if (route.access === 'none') return { partitions: [], write: false, indexes: [] };
  const room: PartitionKind[] = route.path.startsWith('/webhook')
    ? ['webhooks', 'webhook']
    : route.path.startsWith('/activities')
      ? ['workspace', 'activity']
      : ['workspace', 'project', 'label', 'stats'];
  return {
    partitions: route.method === 'POST' ? [...room, 'idempotency'] : room,
    write: route.access === 'write',
    ...(READS_PROJECTS.has(route.name) ? { reads: ['workspace'] } : {}),
    indexes: QUERIES[route.name] ?? [],
    counts: ['load'],
  };
}

/** The functions no request invokes. */
export const CONSUMER_TABLE_ACCESS = {
  authorizer: { partitions: ['token'], write: false, indexes: [], operations: ['GetItem'] },
  'stream-processor': { partitions: ['workspace', 'project', 'label', 'stats', 'receipt', 'activity'], write: true, indexes: [] },
  'inbound-consumer': { partitions: ['workspace', 'project', 'label', 'stats', 'receipt'], write: true, indexes: [] },
  'webhook-deliverer': {
    partitions: ['webhooks', 'webhook'],
    write: true,
    // The due index, which its sweep reads (every workspace's overdue deliveries, by their names only).
    indexes: ['byDue'],
    operations: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
  },
} as const satisfies Record<string, TableAccess>;

const patterns = (kinds: readonly PartitionKind[]) => kinds.map((p) => `${keys.partitionPrefixes[p]}*`);

/** The partition key patterns `dynamodb:LeadingKeys` takes for the partitions it may write (and read). */
export function leadingKeyPatterns(access: TableAccess): string[] {
  return patterns(access.partitions);
}

/** What a function may do to its counts' partitions: add to an item, read one. */
export const COUNT_OPERATIONS = ['UpdateItem', 'GetItem'] as const;

/** The patterns of the partitions it may only add to and read (COUNT_OPERATIONS). */
export function countPatterns(access: TableAccess): string[] {
  return patterns(access.counts ?? []);
}

/** Whether every partition of a call is one the access may only add to and read, and the call is one of COUNT_OPERATIONS. */
export function onlyCounts(access: TableAccess, operation: string, partitionKeys: readonly string[]): boolean {
  const counts = access.counts ?? [];
  return (
    (COUNT_OPERATIONS as readonly string[]).includes(operation) &&
    counts.length > 0 &&
    partitionKeys.length > 0 &&
    partitionKeys.every((pk) => counts.some((p) => pk.startsWith(keys.partitionPrefixes[p])))
  );
}

/** The patterns of the partitions it may only read. */
export function readOnlyPatterns(access: TableAccess): string[] {
  return patterns(access.reads ?? []);
}

/** The patterns of the index partitions its index queries reach (an index's partition key is the leading key of its query). */
export function indexKeyPatterns(access: TableAccess): string[] {
  return [...new Set(access.indexes.map((i) => `${keys.indexPartitionPrefixes[i]}*`))];
}

/** Whether `partitionKey` is one of the partitions the access reaches: to read (its read-only ones too) or to write. */
export function reaches(access: TableAccess, partitionKey: string, to: 'read' | 'write' = 'read'): boolean {
  const kinds = to === 'write' ? access.partitions : [...access.partitions, ...(access.reads ?? [])];
  return kinds.some((p) => partitionKey.startsWith(keys.partitionPrefixes[p]));
}
