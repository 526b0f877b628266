import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, expect, test, vi } from 'vitest';
import { checkTable } from '#checker/invariants';
import { repairTable } from '#checker/repair';
import { createLabel } from '#domain/labels';
import { applyInboundEvent } from '#domain/inbound';
import { createProject, deleteProject, getProjectWithStats, updateProject } from '#domain/projects';
import { changeLabels } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { db } from '#store/client';
import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { readThing, writeTransition } from '#store/inboundStates';
import { homeShard } from '#store/taskShardLayout';
import { keys } from '#store/keys';
import { readProject } from '#store/projects';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { inboundEvent } from '#support/inbound';
import { usePrivateTable } from '#support/privateTable';

/**
 * A project's counters left its item (store/projectStats.ts): inbound events write a task's, member's or sprint's state
 * alone, and the stream processor sums each batch's state changes and label-count changes of a project into its kept
 * stats item, once per record (receipts). Nothing moves: the item's counters stay as its base, and a read adds the two.
 * For 15 minutes after this version first counts on a table it counts as the version before (on the item), so a
 * function of that version, mid-deploy, loses nothing and counts nothing twice. A table of this file's own: it starts
 * as one the version before wrote (no layout item); the stream processor runs on its records.
 */
const table = usePrivateTable(`project-stats-${Date.now()}`);
const checkpoints: Record<string, string> = {};
const published: OutboundEvent[] = [];
const bus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };
/** The records since the last drain, processed as one batch each time they come, and handed back. */
async function drain(): Promise<DynamoDBRecord[]> {
  const records: DynamoDBRecord[] = [];
  await table.drain(async (batch) => {
    records.push(...batch);
    await processStreamBatch(batch, bus);
  }, checkpoints);
  return records;
}

afterEach(() => vi.restoreAllMocks());

const actor = { name: 'Stats', username: 'stats' };
const later = () => {
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + SPREAD_AFTER_MS + 2_000);
};
const statsOf = async (ws: string, slug: string) => {
  const p = await getProjectWithStats(ws, slug);
  return { tasks: p.tasks_count, completed: p.completed_count, members: p.members_count, sprints: p.sprints_count, labels: p.labels_count };
};
/** The project item's own counters: its base. */
const readProjectBase = async (ws: string, slug: string) => (await readProject(ws, slug, true))!;
const kept = async (ws: string, slug: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.projectStats(ws, slug), ConsistentRead: true }))).Item;

test('counted on the item for 15 minutes after the first count, then through the stream; a read adds the two, and each change counts once', async () => {
  // As the version before left it: no LAYOUT item of the stats, nor of the projects' copies (store/copies.ts: reads take
  // the item until rekey has copied every project, which it does only once stats are counted through the stream).
  for (const Key of [keys.statsLayout(), keys.projectCopiesLayout()]) await db.send(new DeleteCommand({ TableName: tableName(), Key }));
  const ws = uniqueWorkspace('stats-layout');
  const project = await createProject(ws, { name: 'Counted', owner: actor });
  await createLabel(ws, { title: 'One', color: '112233' }, actor);
  await createLabel(ws, { title: 'Two', color: '445566' }, actor);
  await drain();

  // This version's first counts: as the version before counts them, on the item; its states are not marked.
  for (const [type, task] of [
    ['Task Created', 't1'],
    ['Task Created', 't2'],
    ['Task Completed', 't1'],
  ] as const)
    expect(await applyInboundEvent(inboundEvent(ws, project.slug, type, task))).toBe('applied');
  await changeLabels('attach', ws, { labelSlug: 'one', projectSlug: project.slug, taskUuids: ['t1'] }, actor);
  await drain();
  expect(await kept(ws, project.slug)).toBeUndefined();
  const base = await readProjectBase(ws, project.slug);
  expect([base.tasks_count, base.completed_count, base.labels_count]).toEqual([2, 1, 1]);
  expect((await readThing(project.id, 'task', 't1')).item?.stats_by_stream).toBeUndefined();

  // 15 minutes on: a state changes alone, and the stream moves the kept stats; the item's base stays.
  later();
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Task Created', 't3'))).toBe('applied');
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Task Deleted', 't2'))).toBe('applied'); // a state of before
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Member Added', 'ann'))).toBe('applied');
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Sprint Created', 's1'))).toBe('applied');
  await changeLabels('attach', ws, { labelSlug: 'two', projectSlug: project.slug, taskUuids: ['t3'] }, actor);
  const records = await drain();
  expect(await statsOf(ws, project.slug)).toEqual({ tasks: 2, completed: 1, members: 2, sprints: 1, labels: 2 });
  // t3 came and t2 went in one batch: the sum moved no task count.
  expect(await kept(ws, project.slug)).toMatchObject({ project_id: project.id, members_count: 1, sprints_count: 1, labels_count: 1 });
  expect((await kept(ws, project.slug))?.tasks_count ?? 0).toBe(0);
  const after = await readProjectBase(ws, project.slug);
  expect([after.tasks_count, after.members_count, after.labels_count]).toEqual([2, 1, 1]);

  // The same records again, whole and in parts (a redelivery, a bisection): nothing counts twice.
  const half = Math.ceil(records.length / 2);
  await processStreamBatch(records, bus);
  await processStreamBatch(records.slice(0, half), bus);
  await processStreamBatch(records.slice(half), bus);
  expect(await statsOf(ws, project.slug)).toEqual({ tasks: 2, completed: 1, members: 2, sprints: 1, labels: 2 });

  // A function of the version before, still running: it counts its change on the item; the stream leaves its state alone.
  const read = await readThing(project.id, 'task', 't4');
  const zero = { tasks_count: 0, completed_count: 0, members_count: 0, sprints_count: 0 };
  expect(await writeTransition(ws, project, 'task', 't4', { created: true, deleted: false }, read, { ...zero, tasks_count: 1 })).toBe(
    'written',
  );
  await drain();
  expect(await statsOf(ws, project.slug)).toEqual({ tasks: 3, completed: 1, members: 2, sprints: 1, labels: 2 });
  expect((await checkTable([ws])).violations).toEqual([]);

  // A Project Updated event shows the stats whole, before and after.
  published.length = 0;
  await updateProject(ws, project.slug, { description: 'changed' }, actor);
  await drain();
  const updated = published.find((e) => e.detailType === 'Project Updated')?.detail as {
    data: { stats: unknown };
    previous: { stats: unknown };
  };
  expect(updated.data.stats).toMatchObject({ tasks_count: 3, members_count: 2, labels_count: 2 });
  expect(updated.previous.stats).toMatchObject({ tasks_count: 3, labels_count: 2 });
});

test("a project's delete takes its kept stats (its event shows them whole); a new project of the slug starts from nothing; a stale item counts for nothing and goes", async () => {
  later();
  const ws = uniqueWorkspace('stats-delete');
  const project = await createProject(ws, { name: 'Gone', owner: actor });
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Task Created', 'a'))).toBe('applied');
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Task Created', 'b'))).toBe('applied');
  const all = await drain();
  expect(await statsOf(ws, project.slug)).toMatchObject({ tasks: 2 });

  published.length = 0;
  await deleteProject(ws, project.slug, actor);
  expect(await kept(ws, project.slug)).toBeUndefined();
  await drain();
  const deleted = published.find((e) => e.detailType === 'Project Deleted')?.detail as { data: unknown };
  expect(deleted.data).toMatchObject({ stats: { tasks_count: 2 } });
  // Its records delivered again after the delete write nothing back.
  await processStreamBatch(all, bus);
  expect(await kept(ws, project.slug)).toBeUndefined();
  // States the consumer wrote after the delete (it read the project just before), two of one task in one batch: the
  // stream takes them away.
  const late = await readThing(project.id, 'task', 'z');
  expect(await writeTransition(ws, project, 'task', 'z', { created: true, deleted: false }, late, 'stream')).toBe('written');
  const second = await readThing(project.id, 'task', 'z');
  const completed = { created: true, deleted: false, flag: { value: true, at: 'z' } };
  expect(await writeTransition(ws, project, 'task', 'z', completed, second, 'stream')).toBe('written');
  const records: DynamoDBRecord[] = [];
  await table.drain(async (batch) => void records.push(...batch), checkpoints);
  expect(records.filter((r) => r.dynamodb?.NewImage?.SK?.S === 'TASKSTATE#z')).toHaveLength(2);
  await processStreamBatch(records, bus);
  expect((await readThing(project.id, 'task', 'z')).item).toBeUndefined();
  expect(await kept(ws, project.slug)).toBeUndefined();
  // One whose record was lost: the checker names it, the repair removes it.
  expect(
    await writeTransition(
      ws,
      project,
      'sprint',
      'lost',
      { created: true, deleted: false },
      await readThing(project.id, 'sprint', 'lost'),
      'stream',
    ),
  ).toBe('written');
  await table.drain(async () => undefined, checkpoints);
  expect((await checkTable([ws])).violations).toEqual([
    `sprint state ${keys.thingState(project.id, 'sprint', 'lost', homeShard('lost')).PK} / SPRINTSTATE#lost belongs to a missing project`,
  ]);
  await repairTable({ dryRun: false });
  expect((await checkTable([ws])).violations).toEqual([]);

  const again = await createProject(ws, { name: 'Gone', owner: actor });
  expect(again.slug).toBe(project.slug);
  expect(await statsOf(ws, again.slug)).toEqual({ tasks: 0, completed: 0, members: 1, sprints: 0, labels: 0 });
  // Nor once a new project has the slug: the old project's records count for nothing on it.
  await processStreamBatch(all, bus);
  expect(await kept(ws, again.slug)).toBeUndefined();

  // Kept stats of another project of the slug (left by a version that did not know them): not counted, reported, replaced.
  const stale = {
    ...keys.projectStats(ws, again.slug),
    type: 'project_stats',
    workspace: ws,
    project_id: project.id,
    project_slug: again.slug,
    tasks_count: 7,
  };
  await db.send(new PutCommand({ TableName: tableName(), Item: stale }));
  expect(await statsOf(ws, again.slug)).toMatchObject({ tasks: 0 });
  expect((await checkTable([ws])).violations).toEqual([
    `kept stats ${stale.PK} / STATS name project ${project.id}, which is not the live project of that slug; npm run repair removes them`,
  ]);
  expect(await applyInboundEvent(inboundEvent(ws, again.slug, 'Task Created', 'c'))).toBe('applied');
  await drain();
  expect(await kept(ws, again.slug)).toMatchObject({ project_id: again.id, tasks_count: 1 });
  expect(await statsOf(ws, again.slug)).toMatchObject({ tasks: 1 });

  // A stale item and a drifted base together: the repair removes the one and makes up the other in its own kept stats.
  await db.send(new PutCommand({ TableName: tableName(), Item: stale }));
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.project(ws, again.slug),
      UpdateExpression: 'SET members_count = :m',
      ExpressionAttributeValues: { ':m': 4 },
    }),
  );
  expect((await checkTable([ws])).violations).toHaveLength(3);
  await repairTable({ dryRun: false });
  expect((await checkTable([ws])).violations).toEqual([]);
  expect(await statsOf(ws, again.slug)).toMatchObject({ tasks: 1, members: 1 });
  expect(await kept(ws, again.slug)).toMatchObject({ project_id: again.id, tasks_count: 1, members_count: -3 });

  // Drift (a record lost to the failure destination): the repair puts the kept stats right, the base untouched.
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...(await kept(ws, again.slug))!, tasks_count: 5 } }));
  expect((await checkTable([ws])).violations).toEqual([`project ${ws}/${again.slug}: tasks_count is 5, the inbound states say 1`]);
  await repairTable({ dryRun: false });
  expect((await checkTable([ws])).violations).toEqual([]);
  expect(await statsOf(ws, again.slug)).toMatchObject({ tasks: 1 });
  expect((await readProjectBase(ws, again.slug)).tasks_count).toBe(0);
});
