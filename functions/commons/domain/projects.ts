import { randomUUID } from 'node:crypto';
import { queryAll } from '#store/query';
import { claimCopyName, deleteProjectItem, putNewProject, readProject } from '#store/projects';
import { updateProjectItem } from '#store/projectUpdates';
import { copiesOfItem } from '#store/copyLayouts';
import { decodeProject, projectRanges, projectItem, slugOfProjectItem } from '#store/projectItem';
import { readKeptStats, withKeptStats } from '#store/projectStats';

import { changedSinceRead, projectNotFound, type Precondition } from './errors';
import { MAX_PROJECT_NAME } from './limits';
import { readPage, type Page, type PageRequest } from './paging';
import { claimSlug, slugify } from './slugs';
import { cutToChars, foldKey, nameKey, titleKey } from './text';
import type { Actor, ProjectPatch, ProjectRecord, ProjectStatus, Visibility, Workflow } from './entities';
import { allSettled } from '#store/settled';

export interface NewProject {
  name: string;
  description?: string;
  visibility?: Visibility;
  client_uuid?: string;
  owner: ProjectRecord['owner'];
}

const DEFAULT_WORKFLOW: Workflow = 'kanban';

/** The counters of a new project (or a copy): members start at 1, the owner. */
export const FRESH_STATS = { tasks_count: 0, completed_count: 0, members_count: 1, sprints_count: 0, labels_count: 0 } as const;

/** The project item exactly as the service writes it. */
export function storedProjectItem(record: ProjectRecord) {
  return projectItem(record, nameKey);
}

/** The project's item and its copies (store/copies.ts), as the service writes them (benchmarks and tests seed tables with them). */
export function storedProjectItems(record: ProjectRecord) {
  const item = storedProjectItem(record);
  return [item, ...copiesOfItem(item)];
}

/** Initials of the name's words (up to 4), or the first three letters of a one-word name; `PRJ` if none. */
export function taskPrefixFor(name: string): string {
  const words = slugify(name, '')
    .split('-')
    .filter((w) => /^[a-z]/.test(w));
  const prefix =
    words.length > 1
      ? words
          .slice(0, 4)
          .map((w) => w[0])
          .join('')
      : (words[0] ?? '').replace(/[^a-z]/g, '').slice(0, 3);
  return prefix.length >= 2 ? prefix.toUpperCase() : 'PRJ';
}

/**
 * Writes a new project under the first free slug derived from its name. The write is conditional
 * on the slug being free, so two concurrent creates of the same name get two slugs and neither
 * overwrites the other.
 */
function insertProject(ws: string, fields: Omit<ProjectRecord, 'slug' | 'id' | 'workspace'>): Promise<ProjectRecord> {
  const takenSlugs = async (prefix: string) =>
    (await queryAll(projectRanges.slugsStartingWith(ws, prefix), { keysOnly: true })).map(slugOfProjectItem);
  return claimSlug(
    slugify(fields.name, 'project'),
    takenSlugs,
    async (slug) => {
      const record: ProjectRecord = { id: randomUUID(), workspace: ws, slug, ...fields };
      return (await putNewProject(record, nameKey)) ? record : undefined;
    },
    'projects with this name',
  );
}

export function createProject(ws: string, input: NewProject, actor: Actor = actorOf(input.owner)): Promise<ProjectRecord> {
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
    updated_by: actor,
  });
}

/** The actor of a change: the token's owner. */
const actorOf = (owner: ProjectRecord['owner']): Actor => ({ username: owner.username, name: owner.name });

/** A project of the workspace, read strongly consistent (callers expect to see their own writes). */
export async function getProject(ws: string, slug: string): Promise<ProjectRecord> {
  const project = await readProject(ws, slug);
  if (!project) throw projectNotFound(slug);
  return project;
}

/**
 * A project with its stats whole (its item's base and what the stream kept: store/projectStats.ts), both read
 * strongly consistent at once: what every answer and check that shows the stats reads.
 */
export async function getProjectWithStats(ws: string, slug: string): Promise<ProjectRecord> {
  const [project, kept] = await allSettled([readProject(ws, slug), readKeptStats(ws, slug)]);
  if (!project) throw projectNotFound(slug);
  return withKeptStats(project, kept);
}

export function listProjects(ws: string, req: PageRequest & { status?: ProjectStatus | undefined }): Promise<Page<ProjectRecord>> {
  return req.status
    ? readPage(projectRanges.byStatus(ws, req.status), ['status'], req, decodeProject)
    : readPage(projectRanges.all(ws), ['all'], req, decodeProject);
}

/**
 * Case-insensitive (folded), trimmed prefix match on the name; an exact match sorts before longer
 * names. A search longer than the name index's key budget reads by its start and keeps only the
 * names that really start with it.
 */
export async function findProjectsByName(ws: string, name: string, req: PageRequest): Promise<Page<ProjectRecord>> {
  const folded = foldKey(name);
  const prefix = nameKey(name);
  const page = await readPage(projectRanges.byName(ws, prefix), ['name'], req, decodeProject);
  return prefix === folded ? page : { ...page, items: page.items.filter((p) => foldKey(p.name).startsWith(folded)) };
}

/**
 * A partial update: only the fields it names are written, so concurrent updates of different
 * fields both land. With a precondition (If-Match), the project is read and checked first, and the
 * write is conditional on the revision read: a change in between is a 412, never overwritten. An
 * update that changes nothing writes nothing: no event, the same ETag. Once the write has landed, only a second failure
 * to read the stats makes it a 503.
 */
export async function updateProject(
  ws: string,
  slug: string,
  patch: ProjectPatch,
  actor: Actor,
  precondition?: Precondition<ProjectRecord>,
): Promise<ProjectRecord> {
  let asRead: ProjectRecord | undefined;
  if (precondition) {
    asRead = await getProjectWithStats(ws, slug);
    await precondition(asRead);
  }
  // Side by side, each part's outcome kept: the write's decides the answer.
  const [write, keptRead] = await Promise.allSettled([updateProjectItem(ws, slug, patch, nameKey, actor, asRead), readKeptStats(ws, slug)]);
  if (write.status === 'rejected') throw write.reason;
  const updated = write.value;
  // Landed: a failed read of its stats is made again, not answered as a 503 (a retry with the same If-Match would be a 412).
  if (updated) return withKeptStats(updated.project, keptRead.status === 'fulfilled' ? keptRead.value : await readKeptStats(ws, slug));
  if (asRead) await getProject(ws, slug); // still there: it changed since it was checked
  throw asRead ? changedSinceRead() : projectNotFound(slug);
}

/**
 * Deletes a project at once, whatever its size: the project item goes and its deletion job comes in
 * one transaction, so every read answers 404 and the slug is free for a new project (with a new
 * internal id, so it starts empty) before this returns. The job's stream record starts the cascade,
 * which removes everything keyed to the old id outside the request (domain/cascades.ts).
 */
export async function deleteProject(
  ws: string,
  slug: string,
  actor: Actor,
  precondition?: Precondition<ProjectRecord>,
): Promise<ProjectRecord> {
  // With its stats whole: the precondition's tag shows them, and so does the Project Deleted event (from its job).
  const project = await getProjectWithStats(ws, slug);
  await precondition?.(project);
  if (await deleteProjectItem(project, actor, precondition !== undefined)) return project;
  if (precondition) await getProject(ws, slug); // still there: it changed since it was checked
  throw precondition ? changedSinceRead() : projectNotFound(slug);
}

export async function duplicateProject(ws: string, slug: string, actor: Actor): Promise<ProjectRecord> {
  const source = await getProject(ws, slug);
  const name = await copyName(ws, source.name);
  const now = new Date().toISOString();
  return insertProject(ws, {
    name,
    description: source.description,
    ...(source.logo ? { logo: source.logo } : {}),
    visibility: source.visibility,
    recurring: source.recurring,
    owner: { name: actor.name, username: actor.username },
    status: 'in_progress',
    settings: { ...source.settings },
    ...(source.client_uuid ? { client_uuid: source.client_uuid } : {}),
    ...FRESH_STATS,
    created_at: now,
    updated_at: now,
    updated_by: actor,
    source_slug: source.slug,
  });
}

/** How long a duplicate holds its copy name before the name index is sure to show the copy. */
const COPY_NAME_CLAIM_SECONDS = 30;

/** `<name> (copy)`, or `(copy 2)`, `(copy 3)`, ... when a project of the workspace already has that name. */
export function copyNameCandidate(name: string, n: number): string {
  const suffix = n <= 1 ? ' (copy)' : ` (copy ${n})`;
  return `${cutToChars(name, MAX_PROJECT_NAME - suffix.length).trimEnd()}${suffix}`;
}

/** The longest suffix a copy name can get (` (copy 99999)`): its stem is the shortest any candidate keeps. */
const LONGEST_COPY_SUFFIX = 13;

async function copyName(ws: string, name: string): Promise<string> {
  // Every taken candidate starts with the shortest stem; a short name narrows the search further.
  const shortest = cutToChars(name, MAX_PROJECT_NAME - LONGEST_COPY_SUFFIX).trimEnd();
  const prefix = shortest === name.trimEnd() ? `${shortest} (copy` : shortest;
  const taken = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await findProjectsByName(ws, prefix, { limit: 100, cursor });
    page.items.forEach((p) => taken.add(foldKey(p.name)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  // The index lags writes by a moment: a short claim per name keeps concurrent duplicates apart.
  for (let n = 1; ; n++) {
    const candidate = copyNameCandidate(name, n);
    if (!taken.has(foldKey(candidate)) && (await claimCopyName(ws, titleKey(candidate), COPY_NAME_CLAIM_SECONDS))) return candidate;
  }
}
