import { PROJECT_STATUSES, VISIBILITIES, WORKFLOWS, type ProjectRecord, type ProjectStatus } from '#domain/entities';
import { bool, map, num, oneOf, optActor, optNum, optStr, str } from './codec';
import { ItemType, keys } from './keys';
import type { Item, KeyRange } from './query';

/** The project item as the table keeps it: its keys, index keys and attributes, decoded back into the entity, and the key ranges it is listed from. */

/** The case-insensitive comparison form the name index sorts by (the domain's nameKey: folded, bounded in bytes). */
export type NameKey = (name: string) => string;

/** The project item as written to the table: keys, index keys and the record (benchmarks seed with it). */
export function projectItem(record: ProjectRecord, nameKey: NameKey): Item {
  const ws = record.workspace;
  return {
    ...keys.project(ws, record.slug),
    ...keys.projectStatusIndex(ws, record.status, record.slug),
    ...keys.projectNameIndex(ws, nameKey(record.name)),
    type: ItemType.project,
    ...record,
  };
}

export function decodeProject(item: Item): ProjectRecord {
  const owner = map(item, 'owner');
  const settings = map(item, 'settings');
  const record: ProjectRecord = {
    id: str(item, 'id'),
    workspace: str(item, 'workspace'),
    slug: str(item, 'slug'),
    name: str(item, 'name'),
    description: str(item, 'description'),
    visibility: oneOf(item, 'visibility', VISIBILITIES),
    recurring: bool(item, 'recurring'),
    owner: { name: str(owner, 'name', item), username: str(owner, 'username', item) },
    status: oneOf(item, 'status', PROJECT_STATUSES),
    settings: { default_workflow: oneOf(settings, 'default_workflow', WORKFLOWS, item), task_prefix: str(settings, 'task_prefix', item) },
    tasks_count: num(item, 'tasks_count'),
    completed_count: num(item, 'completed_count'),
    members_count: num(item, 'members_count'),
    sprints_count: num(item, 'sprints_count'),
    labels_count: num(item, 'labels_count'),
    created_at: str(item, 'created_at'),
    updated_at: str(item, 'updated_at'),
  };
  const logo = optStr(item, 'logo');
  if (logo !== undefined) record.logo = logo;
  const client = optStr(item, 'client_uuid');
  if (client !== undefined) record.client_uuid = client;
  const by = optActor(item, 'updated_by');
  if (by !== undefined) record.updated_by = by;
  const source = optStr(item, 'source_slug');
  if (source !== undefined) record.source_slug = source;
  const rev = optNum(item, 'rev');
  if (rev !== undefined) record.rev = rev;
  return record;
}

/** The ranges projects are listed from: all, by status, by name prefix, and the slugs of a family. */
export const projectRanges = {
  all: (ws: string): KeyRange => ({ partition: keys.workspace(ws), sortPrefix: keys.projectSkPrefix }),
  byStatus: (ws: string, status: ProjectStatus): KeyRange => ({ index: 'byStatus', partition: keys.projectStatusPartition(ws, status) }),
  byName: (ws: string, namePrefix: string): KeyRange => ({
    index: 'byName',
    partition: keys.projectNamePartition(ws),
    sortPrefix: namePrefix,
  }),
  slugsStartingWith: (ws: string, slugPrefix: string): KeyRange => ({
    partition: keys.workspace(ws),
    sortPrefix: `${keys.projectSkPrefix}${slugPrefix}`,
  }),
};

/** The slug of a project item returned by `slugsStartingWith`. */
export function slugOfProjectItem(item: Item): string {
  return str(item, 'SK').slice(keys.projectSkPrefix.length);
}

/**
 * The condition that the item is still the one `read` (same project, same revision), for a write
 * a client made conditional (If-Match). Adds its names and values to the given maps.
 */
export function sameRevision(
  read: { id: string; rev?: number | undefined },
  names: Record<string, string>,
  values: Record<string, unknown>,
): string {
  names['#rev'] = 'rev';
  values[':readId'] = read.id;
  if (read.rev === undefined) return 'id = :readId AND attribute_not_exists(#rev)';
  values[':readRev'] = read.rev;
  return 'id = :readId AND #rev = :readRev';
}
