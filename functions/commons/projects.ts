import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { NotFound, ServiceUnavailable } from './errors';
import { ItemType, keys } from './keys';
import { removeProjectLinks } from './links';
import { queryPage, type Page } from './paging';
import { takenSlugs } from './slugClaims';
import { freeSuffix, normalizeName, slugify, slugWithSuffix } from './slug';
import { tableName } from './table';
import { isConditionFailure, markDeleting } from './writes';

export const PROJECT_STATUSES = ['in_progress', 'completed', 'archived'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const WORKFLOWS = ['kanban', 'scrum'] as const;
export type Workflow = (typeof WORKFLOWS)[number];
export type Visibility = 'public' | 'private';
export const MAX_PROJECT_NAME = 255;

/** A project as stored (keys and index attributes omitted). */
export interface ProjectRecord {
  id: string;
  workspace: string;
  slug: string;
  name: string;
  description: string;
  logo?: string;
  visibility: Visibility;
  recurring: boolean;
  owner: { name: string; username: string };
  status: ProjectStatus;
  settings: { default_workflow: Workflow; task_prefix: string };
  client_uuid?: string;
  tasks_count: number;
  completed_count: number;
  members_count: number;
  sprints_count: number;
  labels_count: number;
  created_at: string;
  updated_at: string;
  /** Set while a delete is under way (or was interrupted and awaits a retried DELETE). */
  deleting?: boolean;
}

export interface NewProject {
  name: string;
  description?: string;
  visibility?: Visibility;
  client_uuid?: string;
  owner: { name: string; username: string };
}

export interface ProjectPatch {
  name?: string;
  description?: string;
  visibility?: Visibility;
  status?: ProjectStatus;
  settings?: { default_workflow?: Workflow; task_prefix?: string };
}

export const DEFAULT_WORKFLOW: Workflow = 'kanban';

/** The counters of a new project (or a copy): members start at 1, the owner. */
export const FRESH_STATS = { tasks_count: 0, completed_count: 0, members_count: 1, sprints_count: 0, labels_count: 0 } as const;

/** Initials of the name's words (up to 4), or the first three letters of a one-word name; `PRJ` if none. */
export function taskPrefixFor(name: string): string {
  const words = slugify(name, '').split('-').filter((w) => /^[a-z]/.test(w));
  const prefix = words.length > 1 ? words.slice(0, 4).map((w) => w[0]).join('') : (words[0] ?? '').replace(/[^a-z]/g, '').slice(0, 3);
  return prefix.length >= 2 ? prefix.toUpperCase() : 'PRJ';
}

/** The project item as written to the table: keys, index keys and the record (benchmarks seed with it). */
export function storedItem(ws: string, record: ProjectRecord) {
  return {
    ...keys.project(ws, record.slug),
    ...keys.projectStatusIndex(ws, record.status, record.slug),
    ...keys.projectNameIndex(ws, normalizeName(record.name)),
    type: ItemType.project,
    ...record,
  };
}

function toRecord(item: Record<string, unknown>): ProjectRecord {
  const { PK: _a, SK: _b, GSI1PK: _c, GSI1SK: _d, GSI2PK: _e, GSI2SK: _f, type: _g, ...record } = item;
  return record as unknown as ProjectRecord;
}

const MAX_SLUG_ROUNDS = 10;

/**
 * Writes a new project under the first free slug derived from its name. The write is conditional
 * on the slug being free, so two concurrent creates of the same name get two slugs and neither
 * overwrites the other; on a collision the taken slugs of that family are read and the next free
 * suffix is tried.
 */
async function insertProject(ws: string, fields: Omit<ProjectRecord, 'slug' | 'id' | 'workspace'>): Promise<ProjectRecord> {
  const base = slugify(fields.name, 'project');
  let slug = base;
  for (let round = 0; round < MAX_SLUG_ROUNDS; round++) {
    const record: ProjectRecord = { id: randomUUID(), workspace: ws, slug, ...fields };
    try {
      await db.send(
        new PutCommand({ TableName: tableName(), Item: storedItem(ws, record), ConditionExpression: 'attribute_not_exists(PK)' }),
      );
      return record;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      slug = slugWithSuffix(base, freeSuffix(base, await takenSlugs(ws, 'project', base), round));
    }
  }
  throw new ServiceUnavailable('Too many concurrent creates of projects with this name; retry.');
}

export async function createProject(ws: string, input: NewProject): Promise<ProjectRecord> {
  const now = new Date().toISOString();
  return insertProject(ws, {
    name: input.name,
    description: input.description ?? '',
    visibility: input.visibility ?? 'public',
    recurring: false,
    owner: input.owner,
    status: 'in_progress',
    settings: { default_workflow: DEFAULT_WORKFLOW, task_prefix: taskPrefixFor(input.name) },
    ...(input.client_uuid ? { client_uuid: input.client_uuid } : {}),
    ...FRESH_STATS,
    created_at: now,
    updated_at: now,
  });
}

/** A project of the workspace, read strongly consistent (callers expect to see their own writes). */
export async function getProject(ws: string, slug: string): Promise<ProjectRecord> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.project(ws, slug), ConsistentRead: true }));
  if (!Item) throw new NotFound(`No project "${slug}" in this workspace.`);
  return toRecord(Item);
}

export interface ListOptions {
  limit: number;
  cursor?: string;
}

export async function listProjects(ws: string, opts: ListOptions & { status?: ProjectStatus }): Promise<Page<ProjectRecord>> {
  const page = opts.status
    ? await queryPage({ index: 'byStatus', partitionValue: keys.projectStatusPartition(ws, opts.status), fingerprint: ['status'], ...opts })
    : await queryPage({ partitionValue: keys.workspace(ws), sortPrefix: keys.projectSkPrefix, fingerprint: ['all'], ...opts });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

/** Case-insensitive, trimmed prefix match on the name; an exact match sorts before longer names. */
export async function findProjectsByName(ws: string, name: string, opts: ListOptions): Promise<Page<ProjectRecord>> {
  const page = await queryPage({
    index: 'byName',
    partitionValue: keys.projectNamePartition(ws),
    sortPrefix: normalizeName(name),
    fingerprint: ['name'],
    ...opts,
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

export async function updateProject(ws: string, slug: string, patch: ProjectPatch): Promise<ProjectRecord> {
  const sets: string[] = ['updated_at = :now'];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': new Date().toISOString() };
  const set = (attr: string, value: unknown) => {
    const n = `#${attr.replace(/\W/g, '_')}`;
    names[n] = attr;
    values[`:${attr.replace(/\W/g, '_')}`] = value;
    sets.push(`${n} = :${attr.replace(/\W/g, '_')}`);
  };
  if (patch.name !== undefined) {
    set('name', patch.name);
    set('GSI2SK', normalizeName(patch.name));
  }
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.visibility !== undefined) set('visibility', patch.visibility);
  if (patch.status !== undefined) {
    set('status', patch.status);
    set('GSI1PK', keys.projectStatusPartition(ws, patch.status));
  }
  if (patch.settings?.default_workflow !== undefined) {
    names['#settings'] = 'settings';
    values[':workflow'] = patch.settings.default_workflow;
    sets.push('#settings.default_workflow = :workflow');
  }
  if (patch.settings?.task_prefix !== undefined) {
    names['#settings'] = 'settings';
    values[':prefix'] = patch.settings.task_prefix;
    sets.push('#settings.task_prefix = :prefix');
  }
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(ws, slug),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toRecord(Attributes!);
  } catch (error) {
    if (isConditionFailure(error)) throw new NotFound(`No project "${slug}" in this workspace.`);
    throw error;
  }
}

/**
 * Deletes a project in three resumable steps: mark it `deleting` (from then on no label can be
 * attached to it), remove everything keyed to its internal id, then delete the project item. If a
 * step fails the request answers 503 and the project stays, marked, with part of its links gone:
 * a retried DELETE finds the mark and finishes the job. Nothing is left orphaned in between.
 */
export async function deleteProject(ws: string, slug: string): Promise<void> {
  const notFound = () => new NotFound(`No project "${slug}" in this workspace.`);
  const marked = await markDeleting(keys.project(ws, slug));
  if (!marked) throw notFound();
  const project = toRecord(marked);
  try {
    await removeProjectLinks(ws, project.id);
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.project(ws, slug),
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': project.id },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw notFound();
    throw error;
  }
}

export async function duplicateProject(ws: string, slug: string, owner: ProjectRecord['owner']): Promise<ProjectRecord> {
  const source = await getProject(ws, slug);
  const name = await copyName(ws, source.name);
  const now = new Date().toISOString();
  return insertProject(ws, {
    name,
    description: source.description,
    ...(source.logo ? { logo: source.logo } : {}),
    visibility: source.visibility,
    recurring: source.recurring,
    owner,
    status: 'in_progress',
    settings: { ...source.settings },
    ...(source.client_uuid ? { client_uuid: source.client_uuid } : {}),
    ...FRESH_STATS,
    created_at: now,
    updated_at: now,
  });
}

/** `<name> (copy)`, or `(copy 2)`, `(copy 3)`, ... when a project of the workspace already has that name. */
export function copyNameCandidate(name: string, n: number): string {
  const suffix = n <= 1 ? ' (copy)' : ` (copy ${n})`;
  return `${name.slice(0, MAX_PROJECT_NAME - suffix.length).trimEnd()}${suffix}`;
}

async function copyName(ws: string, name: string): Promise<string> {
  const stem = copyNameCandidate(name, 1).slice(0, -' (copy)'.length);
  const taken = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await findProjectsByName(ws, `${stem} (copy`, { limit: 100, cursor });
    page.items.forEach((p) => taken.add(normalizeName(p.name)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  for (let n = 1; ; n++) {
    const candidate = copyNameCandidate(name, n);
    if (!taken.has(normalizeName(candidate))) return candidate;
  }
}
