import { oldSecretViolations } from './clearSecrets.ts';
import { countViolations, tallyViolations } from './counts.ts';
import { deliveryViolations } from './deliveries.ts';
import { historyViolations } from './history.ts';
import { copyViolations } from './copies.ts';
import { guardViolations } from './guards.ts';
import { labelLinkShardViolations } from './labelLinks.ts';
import { legacyViolations } from './legacy.ts';
import { projectsWithKeptStats, staleStatsViolations } from './stats.ts';
import { liveLinks, taskShardViolations } from './taskShards.ts';
import { tombstoneViolations } from './tombstones.ts';
import { ScanCommand, type ScanCommandInput, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { MAX_LABELS_PER_TASK } from '#domain/limits';
import { foldKey, nameKey, titleKey } from '#domain/text';
import { tableName } from '#store/table';
import type { DeliveriesSpreadAt } from '#webhooks/store/deliveryLayout';
import { deliveriesSpreadAt } from '#webhooks/store/deliverySpread';

type Item = Record<string, any>;

/** A deletion job older than this has stalled. */
const STALLED_MS = 3_600_000;

/**
 * Every item of the table (a Scan: this is an offline tool, never a request path), or, given
 * workspaces, only theirs: items carrying one of them as `workspace`, and their workspace partitions.
 * The filter runs in the database, so a check of a few workspaces in a large table moves only their items.
 */
export async function scanTable(workspaces?: string[]): Promise<Item[]> {
  return scanWhere(workspaces?.length ? workspaceFilter(workspaces) : {});
}

/** Every item of the table that `filter` keeps (a FilterExpression and its names and values), read strongly, page by page. */
export async function scanWhere(
  filter: Pick<ScanCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out: ScanCommandOutput = await db.send(
      new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true, ...filter }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

function workspaceFilter(workspaces: string[]) {
  const values: Record<string, string> = {};
  workspaces.forEach((ws, i) => {
    values[`:ws${i}`] = ws;
    values[`:pk${i}`] = keys.workspace(ws);
  });
  const list = (prefix: string) => workspaces.map((_, i) => `:${prefix}${i}`).join(', ');
  return {
    FilterExpression: `#ws IN (${list('ws')}) OR #pk IN (${list('pk')})`,
    ExpressionAttributeNames: { '#ws': 'workspace', '#pk': 'PK' },
    ExpressionAttributeValues: values,
  };
}

/**
 * Every violation of the data model in a set of items: orphan or half links, links to deleted
 * labels or projects, use counters and stats (base and kept) that differ from the links and states, tasks over the
 * label limit, duplicate label titles or slugs, title guards without their label, stale index keys,
 * deletion jobs whose project or label still exists.
 *
 * Two states are not violations: what a deletion job has yet to remove (a deleted project's or
 * label's links, counters and versions, while its cascade drains), and the items that expire by
 * themselves (detach notes, stream receipts, copy-name claims). Counters are derived from the
 * table's stream: they match the links once the stream has drained (callers wait for that).
 */
function findViolations(items: Item[], deliveriesAt: DeliveriesSpreadAt, found: string[]): string[] {
  const v: string[] = [];
  const of = (type: string) => items.filter((i) => i.type === type);
  const projects = projectsWithKeptStats(items);
  const labels = of(ItemType.label);
  const taskLinks = liveLinks(items);
  const labelLinks = of(ItemType.labelLink);
  const uses = of(ItemType.labelUse);

  const projectById = new Map(projects.map((p) => [p.id as string, p]));
  const labelByWsId = new Map(labels.map((l) => [`${l.workspace}#${l.id}`, l]));
  // A cascade under way has removed part of what belongs to its deleted project or label; only that
  // part of the model is exempt, and only while the deletion job exists.
  const projectJobs = new Set(of(ItemType.projectDeletion).map((j) => j.project_id as string));
  const labelJobs = new Set(of(ItemType.labelDeletion).map((j) => `${j.workspace}#${j.label_id}`));
  const inDeletion = (i: Item) => projectJobs.has(i.project_id) || labelJobs.has(`${i.workspace}#${i.label_id}`);
  for (const id of projectJobs) if (projectById.has(id)) v.push(`project ${id} has a deletion job but still exists`);
  // A cascade runs in seconds; one an hour old has stalled (its stream record was lost): `npm run repair` re-drives it.
  for (const job of [...of(ItemType.projectDeletion), ...of(ItemType.labelDeletion)])
    if (Date.parse(job.deleted_at) < Date.now() - STALLED_MS)
      v.push(`deletion job ${job.PK} (deleted ${job.deleted_at}) has stalled; npm run repair re-drives it`);
  for (const id of labelJobs) if (labelByWsId.has(id)) v.push(`label ${id} has a deletion job but still exists`);
  const linkId = (i: Item) => `${i.workspace}|${i.project_id}|${i.task_uuid}|${i.label_id}`;

  const known = new Set<string>(Object.values(ItemType));
  for (const i of items) if (!known.has(i.type)) v.push(`item ${i.PK} / ${i.SK} has unknown type ${i.type}`);
  v.push(...legacyViolations(items), ...items.flatMap(oldSecretViolations));
  v.push(...historyViolations(items), ...deliveryViolations(items, deliveriesAt));
  v.push(...staleStatsViolations(items), ...taskShardViolations(items));
  v.push(...tombstoneViolations(items), ...found);

  for (const p of projects) {
    const expected = {
      ...keys.project(p.workspace, p.slug),
      ...keys.projectStatusIndex(p.workspace, p.status, p.slug),
      ...keys.projectNameIndex(p.workspace, nameKey(p.name)),
    };
    for (const [k, val] of Object.entries(expected))
      if (p[k] !== val) v.push(`project ${p.workspace}/${p.slug}: ${k} is ${p[k]}, expected ${val}`);
  }

  const labelSideIds = new Set(labelLinks.map(linkId));
  const taskSideIds = new Set(taskLinks.map(linkId));
  for (const l of taskLinks) {
    if (!labelSideIds.has(linkId(l)) && !inDeletion(l)) v.push(`task link ${linkId(l)} has no label-side half`);
    if (inDeletion(l)) continue;
    const project = projectById.get(l.project_id);
    if (!project || project.workspace !== l.workspace) v.push(`task link ${linkId(l)} belongs to a missing project`);
    const label = labelByWsId.get(`${l.workspace}#${l.label_id}`);
    if (!label) v.push(`task link ${linkId(l)} points to a deleted label`);
    else if (label.slug !== l.label_slug) v.push(`task link ${linkId(l)} names label slug ${l.label_slug}, the label's is ${label.slug}`);
  }
  for (const l of labelLinks) {
    if (!taskSideIds.has(linkId(l)) && !inDeletion(l)) v.push(`label link ${linkId(l)} has no task-side half`);
  }
  v.push(...labelLinkShardViolations(taskLinks, labelLinks, linkId));

  const linkedUses = usesOfLinks(taskLinks);
  const linksPerUse = new Map([...linkedUses].map(([id, use]) => [id, use.n]));
  const labelsPerTask = new Map<string, number>();
  for (const l of taskLinks) {
    const task = `${l.project_id}#${l.task_uuid}`;
    labelsPerTask.set(task, (labelsPerTask.get(task) ?? 0) + 1);
  }
  const usesPerProject = new Map<string, number>();
  for (const u of uses) {
    const id = `${u.project_id}#${u.label_id}`;
    const links = linksPerUse.get(id) ?? 0;
    if (u.n !== links && !inDeletion(u))
      v.push(`use counter of label ${u.label_id} in project ${u.project_id} says ${u.n}, links say ${links}`);
    if (!projectById.has(u.project_id) && !inDeletion(u))
      v.push(`use counter of label ${u.label_id} belongs to a missing project ${u.project_id}`);
    usesPerProject.set(u.project_id, (usesPerProject.get(u.project_id) ?? 0) + 1);
  }
  const useIds = new Set(uses.map((u) => `${u.project_id}#${u.label_id}`));
  for (const l of taskLinks) {
    const id = `${l.project_id}#${l.label_id}`;
    if (!useIds.has(id) && !inDeletion(l)) v.push(`links of ${id} have no use counter`);
  }
  for (const p of projects) {
    const truth = usesPerProject.get(p.id) ?? 0;
    if (p.labels_count !== truth) v.push(`project ${p.workspace}/${p.slug}: labels_count is ${p.labels_count}, links say ${truth}`);
  }
  // Stats fed by inbound events: each counter equals what the task, member and sprint states say.
  const things = of(ItemType.thingState);
  const thingsOf = new Map<string, Item[]>();
  for (const t of things) {
    if (!projectById.has(t.project_id) && !projectJobs.has(t.project_id))
      v.push(`${t.thing} state ${t.PK} / ${t.SK} belongs to a missing project`);
    thingsOf.set(t.project_id, [...(thingsOf.get(t.project_id) ?? []), t]);
  }
  for (const p of projects) {
    for (const [name, value] of Object.entries(inboundStats(p, thingsOf.get(p.id) ?? [])))
      if (p[name] !== value) v.push(`project ${p.workspace}/${p.slug}: ${name} is ${p[name]}, the inbound states say ${value}`);
  }

  // Label-set memberships: both sides present, their project and label alive.
  const memberId = (i: Item) => `${i.workspace}|${i.project_id}|${i.label_id}`;
  const projectSides = of(ItemType.projectLabel);
  const labelSides = of(ItemType.labelProject);
  const projectMembers = new Set(projectSides.map(memberId));
  const labelMembers = new Set(labelSides.map(memberId));
  for (const m of projectSides) {
    if (!labelMembers.has(memberId(m)) && !inDeletion(m)) v.push(`label-set member ${memberId(m)} has no label-side half`);
    if (inDeletion(m)) continue;
    if (!projectById.has(m.project_id)) v.push(`label-set member ${memberId(m)} belongs to a missing project`);
    if (!labelByWsId.has(`${m.workspace}#${m.label_id}`)) v.push(`label-set member ${memberId(m)} names a deleted label`);
  }
  for (const m of labelSides)
    if (!projectMembers.has(memberId(m)) && !inDeletion(m)) v.push(`label-set member ${memberId(m)} has no project-side half`);
  for (const [task, n] of labelsPerTask)
    if (n > MAX_LABELS_PER_TASK) v.push(`task ${task} carries ${n} labels (limit ${MAX_LABELS_PER_TASK})`);
  for (const t of of(ItemType.taskVersion))
    if (!projectById.has(t.project_id) && !projectJobs.has(t.project_id))
      v.push(`task version ${t.PK} / ${t.SK} belongs to a missing project`);
  const titles = new Map<string, Item>();
  const ids = new Map<string, Item>();
  for (const l of labels) {
    const norm = `${l.workspace}#${foldKey(l.title)}`;
    if (titles.has(norm)) v.push(`labels ${titles.get(norm)!.slug} and ${l.slug} share the title "${l.title}" in ${l.workspace}`);
    titles.set(norm, l);
    const id = `${l.workspace}#${l.id}`;
    if (ids.has(id)) v.push(`labels ${ids.get(id)!.slug} and ${l.slug} share id ${l.id} in ${l.workspace}`);
    ids.set(id, l);
    if (l.title_norm !== titleKey(l.title)) v.push(`label ${l.workspace}/${l.slug}: title_norm is stale`);
  }
  v.push(...countViolations(of));
  v.push(...tallyViolations(of));
  return v;
}

/** What a project's four inbound counters should be, by its task, member and sprint states. */
export function inboundStats(
  project: Item,
  states: Item[],
): Record<'tasks_count' | 'completed_count' | 'members_count' | 'sprints_count', number> {
  const live = (t: Item) => t.created === true && t.deleted !== true;
  const tasks = states.filter((t) => t.thing === 'task' && live(t));
  return {
    tasks_count: tasks.length,
    completed_count: tasks.filter((t) => t.flag?.value === true).length,
    members_count: 1 + states.filter((t) => t.thing === 'member' && t.flag?.value === true && t.subject !== project.owner?.username).length,
    sprints_count: states.filter((t) => t.thing === 'sprint' && live(t)).length,
  };
}

/**
 * What each use counter should be, by the task links: per `<projectId>#<labelId>`, how many tasks of
 * the project carry the label. Links of a label being deleted count too: the cascade's REMOVE records
 * take them off the counter one by one.
 */
export function usesOfLinks(taskLinks: Item[]): Map<string, { ws: string; projectId: string; labelId: number; n: number }> {
  const uses = new Map<string, { ws: string; projectId: string; labelId: number; n: number }>();
  for (const l of taskLinks) {
    const id = `${l.project_id}#${l.label_id}`;
    const use = uses.get(id) ?? { ws: l.workspace, projectId: l.project_id, labelId: l.label_id, n: 0 };
    use.n++;
    uses.set(id, use);
  }
  return uses;
}

/** Checks the whole table, or only the given workspaces' items (tests share one table and run in parallel). */
export async function checkTable(workspaces?: string[]): Promise<{ items: number; violations: string[] }> {
  const items = await scanTable(workspaces);
  return {
    items: items.length,
    violations: findViolations(items, await deliveriesSpreadAt(false), [
      ...(await copyViolations(items)),
      ...(await guardViolations(items)),
    ]),
  };
}
