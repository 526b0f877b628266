import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { awayFromHome, copyTaskHome } from '#checker/taskMoves';
import { createLabel, deleteLabel } from '#domain/labels';
import { applyInboundEvent } from '#domain/inbound';
import { createProject, deleteProject, getProjectWithStats } from '#domain/projects';
import { changeLabels, labelsOfTask, toggleTaskLabel } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { db } from '#store/client';
import { TransactionCancelled } from '#store/errors';
import { ItemType, keys, LABEL_LINK_SHARDS } from '#store/keys';
import { labelLinkItem, taskLinkItem } from '#store/linkItems';
import { shardOf } from '#store/shards';
import { readTask, writeDetach } from '#store/links';
import { readTaskLayout } from '#store/taskLayoutReads';
import { homeShard } from '#store/taskShardLayout';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { inboundEvent } from '#support/inbound';
import { clockAt } from '#support/clock';
import { usePrivateTable } from '#support/privateTable';

/**
 * A project's tasks spread over shards of its collection (store/taskShardLayout.ts). A table of this file's own, that
 * starts as the version before left it (no task layout): tasks made in the deploy's window stay in shard 0, those made
 * after go to their homes, and `npm run rekey` moves the ones of before while attaches, detaches and toggles go on,
 * with no event, history entry or count of the move, and no acknowledged change lost.
 */
const table = usePrivateTable(`task-shards-${Date.now()}`);
const checkpoints: Record<string, string> = {};
const published: OutboundEvent[] = [];
const bus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };
const drain = () => table.drain((batch: DynamoDBRecord[]) => processStreamBatch(batch, bus), checkpoints);

afterEach(() => vi.restoreAllMocks());

const actor = { name: 'Shards', username: 'shards' };
const awayTasks = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
const shardsOfTask = async (projectId: string, task: string) =>
  new Set(
    (await scanTable()).filter((i) => i.task_uuid === task && i.type === ItemType.taskLink && i.project_id === projectId).map((i) => i.PK),
  );

test('tasks of before stay in shard 0 until npm run rekey moves them home, beside live writers; the move makes no event and no count', async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.taskShardsLayout() }));
  const ws = uniqueWorkspace('task-shards');
  const project = await createProject(ws, { name: 'Spread', owner: actor });
  const labels = [];
  for (let i = 0; i < 55; i++) labels.push(await createLabel(ws, { title: `L${i}`, color: '112233' }, actor));
  const [first, second, third] = labels;
  const change = (how: 'attach' | 'detach', label: string, taskUuids: string[]) =>
    changeLabels(how, ws, { labelSlug: label, projectSlug: project.slug, taskUuids }, actor);

  // In the window (the first attach makes the layout item): tasks are made in shard 0, states too.
  const old = awayTasks('old', 6);
  await change('attach', first!.slug, old);
  await change('attach', second!.slug, old.slice(0, 3));
  for (const l of labels.slice(2)) await change('attach', l.slug, [old[0]!]); // a task with 55 labels: a move of two steps
  for (const t of old) expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Task Created', t))).toBe('applied');
  expect(await applyInboundEvent(inboundEvent(ws, project.slug, 'Member Added', 'ann'))).toBe('applied');
  for (const t of old) expect(await shardsOfTask(project.id, t)).toEqual(new Set([keys.projectShard(project.id, 0)]));
  // A task of another project, to be deleted while its move is half done.
  const doomed = await createProject(ws, { name: 'Doomed', owner: actor });
  await changeLabels('attach', ws, { labelSlug: first!.slug, projectSlug: doomed.slug, taskUuids: ['d1', 'd2'] }, actor);
  // A link from before task versions were kept: no version anywhere.
  const ref = { id: project.id, slug: project.slug };
  const side = shardOf('nov', LABEL_LINK_SHARDS);
  for (const Item of [
    taskLinkItem(ws, ref, third!, 'nov', new Date().toISOString(), actor, side),
    labelLinkItem(ws, ref, third!, 'nov', new Date().toISOString(), side),
  ])
    await db.send(new PutCommand({ TableName: tableName(), Item }));

  // After the window: a new task goes home; a task of before keeps its version where it is, its new links go home, and
  // it is read in both.
  clockAt(16);
  const [fresh] = awayTasks('new', 1);
  await change('attach', first!.slug, [fresh!]);
  await change('attach', third!.slug, [old[1]!]);
  await change('attach', second!.slug, ['nov']);
  expect(await shardsOfTask(project.id, fresh!)).toEqual(new Set([keys.projectShard(project.id, homeShard(fresh!))]));
  const bothShards = (t: string) => new Set([0, homeShard(t)].map((n) => keys.projectShard(project.id, n)));
  expect(await shardsOfTask(project.id, old[1]!)).toEqual(bothShards(old[1]!));
  expect(await shardsOfTask(project.id, 'nov')).toEqual(bothShards('nov'));
  expect((await labelsOfTask(ws, project.slug, 'nov')).map((l) => l.slug).sort()).toEqual([second!.slug, third!.slug].sort());
  expect((await labelsOfTask(ws, project.slug, old[1]!)).map((l) => l.slug).sort()).toEqual(
    [first!.slug, second!.slug, third!.slug].sort(),
  );
  await drain();
  const statsBefore = await getProjectWithStats(ws, project.slug);
  expect(statsBefore).toMatchObject({ tasks_count: 6, members_count: 2 });
  expect((await checkTable([ws])).violations).toEqual([]);
  const eventsBefore = published.length;

  // A move that stopped after its copies (its process died): the task reads the same; a detach that read it before
  // fails, one that reads again takes the copy; the checker names the move, and the next run finishes it.
  const stale = await readTask(project.id, old[2]!, await readTaskLayout(false));
  expect([stale.home, stale.links.length]).toEqual([0, 2]);
  expect(await copyTaskHome(ws, project.id, old[2]!)).toMatchObject({ commitAt: 3 }); // two attaches, and the step
  expect((await labelsOfTask(ws, project.slug, old[2]!)).map((l) => l.slug).sort()).toEqual([first!.slug, second!.slug].sort());
  await expect(writeDetach(ws, project, { id: first!.id, slug: first!.slug }, [stale], actor)).rejects.toBeInstanceOf(TransactionCancelled);
  await drain();
  const midway = (await checkTable([ws])).violations;
  expect(midway).toHaveLength(2);
  for (const v of midway) expect(v).toMatch(/was copied home by a move that has not finished/);
  await change('detach', first!.slug, [old[2]!]);
  // Attached again meanwhile (at home: the mark where it was is no link), and detached again.
  await change('attach', first!.slug, [old[2]!]);
  await change('detach', first!.slug, [old[2]!]);
  // A project deleted while a move of its task is half done: its cascade takes both the copy and the marked link.
  await copyTaskHome(ws, doomed.id, 'd1');
  await deleteProject(ws, doomed.slug, actor);
  for (let i = 0; i < 3; i++) await drain();
  const doomedItems = (await scanTable()).filter(
    (i) => keys.projectShards(doomed.id).includes(i.PK) || (i.type === ItemType.labelLink && i.project_id === doomed.id),
  );
  // Nothing but its mark in each shard (store/tombstones.ts), which expires.
  expect(doomedItems.map((i) => [i.PK, i.SK, i.type]).sort()).toEqual(
    keys
      .projectShards(doomed.id)
      .map((pk) => [pk, 'GONE', ItemType.tombstone])
      .sort(),
  );

  // The move, in the window of a deploy: nothing moves yet (the 6 tasks, and the one of links alone).
  clockAt(5);
  const states = old.length + 1; // and ann's
  expect(await rekeyTable({ dryRun: true })).toMatchObject({ tasks: 7, states, conflicts: [] });
  expect(await rekeyTable({})).toMatchObject({ tasks: 7, states, waitUntil: expect.any(String), conflicts: [] });
  expect((await scanTable()).filter(awayFromHome).length).toBeGreaterThan(6);

  // After it, beside toggles of a task of before and attaches to another: each acknowledged change stands.
  clockAt(20);
  const toggles = Array.from({ length: 6 }, () => toggleTaskLabel(ws, third!.slug, project.slug, old[3]!, actor));
  const attaches = [change('attach', third!.slug, [old[4]!]), change('detach', first!.slug, [old[5]!])];
  const [moved] = await Promise.all([rekeyTable({}), ...toggles, ...attaches]);
  expect(moved.conflicts).toEqual([]);
  await drain();

  // Every task and state is home; the table says so, and a task is then read at home alone.
  const items = await scanTable();
  expect(items.filter(awayFromHome)).toEqual([]);
  expect(items.find((i) => i.type === ItemType.taskShardsLayout)?.rekeyed_at).toBeDefined();
  clockAt(30);
  expect(await readTaskLayout(false)).toMatchObject({ rekeyed: true });
  expect((await labelsOfTask(ws, project.slug, old[0]!)).length).toBe(55);
  expect((await labelsOfTask(ws, project.slug, old[3]!)).map((l) => l.slug)).toEqual([first!.slug]); // six toggles: as it was
  expect((await labelsOfTask(ws, project.slug, old[4]!)).map((l) => l.slug).sort()).toEqual([first!.slug, third!.slug].sort());
  expect((await labelsOfTask(ws, project.slug, old[5]!)).map((l) => l.slug)).toEqual([]);
  expect((await labelsOfTask(ws, project.slug, old[2]!)).map((l) => l.slug)).toEqual([second!.slug]);
  expect((await labelsOfTask(ws, project.slug, 'nov')).map((l) => l.slug).sort()).toEqual([second!.slug, third!.slug].sort());
  expect((await checkTable([ws])).violations).toEqual([]);
  // The stream saw the move: no event of it, and the stats and counts as they were (the checker compares the counts).
  const mine = (type: string) =>
    published
      .slice(eventsBefore)
      .filter((e) => e.detailType === type && (e.detail as { project_slug?: string }).project_slug === project.slug);
  expect(mine('Label Attached')).toHaveLength(5); // old[2]'s again, old[4]'s, the toggles' three
  expect(mine('Label Detached')).toHaveLength(6); // old[2]'s twice, old[5]'s, the toggles' three
  expect(await getProjectWithStats(ws, project.slug)).toMatchObject({ tasks_count: 6, members_count: 2 });

  // A label's delete takes its links where they now are.
  await deleteLabel(ws, first!.slug, actor);
  await drain();
  await drain();
  expect((await scanTable()).filter((i) => i.type === ItemType.taskLink && i.label_id === first!.id)).toEqual([]);
  expect((await checkTable([ws])).violations).toEqual([]);
});
