import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { createLabel, deleteLabel } from '#domain/labels';
import { tasksWithLabel } from '#domain/labelTasks';
import { createProject, deleteProject } from '#domain/projects';
import { changeLabels, removeTaskLabels, toggleTaskLabel } from '#domain/taskLabels';
import { processStreamBatch } from '#events/processor';
import { db } from '#store/client';
import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { ItemType, keys, LABEL_LINK_SHARDS } from '#store/keys';
import { labelLinkItem, taskLinkItem, taskVersionItem } from '#store/linkItems';
import { readTask, taskOfLabelLink, tasksWithLabelRange, writeDetach } from '#store/links';
import { readTaskLayout } from '#store/taskLayoutReads';
import { homeShard } from '#store/taskShardLayout';
import { readPage } from '#domain/paging';
import { TransactionCancelled } from '#store/errors';
import { shardOf } from '#store/shards';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { usePrivateTable } from '#support/privateTable';

/**
 * A label's collection went from one partition to LABEL_LINK_SHARDS, the label side of each link in the shard a hash of
 * its task gives, with nothing moved (store/labelLinkLayout.ts): links the version before made stay in shard 0 and are
 * read and taken apart there, beside the other shards, and its cursors go on. This version attaches as the version
 * before did for 15 minutes after its first attach on the table, so that a function of that version (mid-deploy, or
 * back after a rollback) finds and deletes every label side. A table of this file's own: it starts as one the version
 * before wrote (no layout item); the stream processor runs on its records (counters, cascades).
 */
const table = usePrivateTable(`label-link-shards-${Date.now()}`);
const checkpoints: Record<string, string> = {};
const drain = () => table.drain((records) => processStreamBatch(records, { publish: async () => undefined }), checkpoints);

afterEach(() => vi.restoreAllMocks());

const actor = { name: 'Shards', username: 'shards' };
const tasks = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}-${String(k).padStart(2, '0')}`);

/** Every item of the workspace of one type. */
const itemsOf = async (ws: string, type: string) => (await scanTable([ws])).filter((i) => i.type === type);

/** Every task of the project carrying the label, page by page from `cursor` on. */
async function follow(ws: string, label: string, project: string, limit: number, cursor?: string) {
  const seen: string[] = [];
  for (let page = await tasksWithLabel(ws, label, project, { limit, cursor }); ; ) {
    seen.push(...page.items);
    if (page.nextCursor === null) return seen;
    page = await tasksWithLabel(ws, label, project, { limit, cursor: page.nextCursor });
  }
}

test('links of before are read and taken apart where they are, cursors minted before go on; new ones spread 15 minutes after the first attach', async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelLinksLayout() }));
  const ws = uniqueWorkspace('label-shards');
  const project = await createProject(ws, { name: 'Shards', owner: actor });
  const label = await createLabel(ws, { title: 'Spread', color: '00AA00' }, actor);
  const projectRef = { id: project.id, slug: project.slug };
  const labelRef = { id: label.id, slug: label.slug };
  const change = (how: 'attach' | 'detach', taskUuids: string[]) =>
    changeLabels(how, ws, { labelSlug: label.slug, projectSlug: project.slug, taskUuids }, actor);

  // Links as the version before made them: the label side in the label's one partition, the task side naming no shard
  // (in its task's shard: this table's tasks are spread, taskShardLayout.ts).
  const before = tasks('b', 6);
  const at = new Date().toISOString();
  const items = before.flatMap((t) => [
    taskVersionItem(ws, project.id, t, 1, homeShard(t)),
    taskLinkItem(ws, projectRef, labelRef, t, at, actor, 0, homeShard(t)),
    labelLinkItem(ws, projectRef, labelRef, t, at),
  ]);
  for (let i = 0; i < items.length; i += 25)
    await db.send(
      new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
    );
  // A cursor as the version before minted it: its reader of one partition.
  const first = await readPage(tasksWithLabelRange(ws, label.id, project.id), ['label-tasks'], { limit: 2 }, taskOfLabelLink);
  expect(first.items).toEqual(before.slice(0, 2));

  // This version's first attaches: where the version before reads them (shard 0), and the service's layout made now.
  const madeAt = Date.now();
  const meanwhile = tasks('m', 4);
  await change('attach', meanwhile);
  const { Item: layout } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelLinksLayout(), ConsistentRead: true }));
  expect(Date.parse(layout!.sharded_since)).toBeGreaterThanOrEqual(madeAt - 1_000);
  const labelSides = async () => new Map((await itemsOf(ws, ItemType.labelLink)).map((i) => [i.task_uuid as string, i.PK as string]));
  const shard0 = keys.labelCollection(ws, label.id);
  for (const t of meanwhile) expect((await labelSides()).get(t)).toBe(shard0);
  expect((await itemsOf(ws, ItemType.taskLink)).filter((i) => i.label_shard !== undefined)).toEqual([]);

  // A detach that read a link of before (shard 0), held up past the spread while the link is detached and made again.
  const raced = meanwhile.find((t) => shardOf(t, LABEL_LINK_SHARDS) !== 0)!;
  const stale = await readTask(project.id, raced, await readTaskLayout(false));
  expect(stale.links.map((l) => l.shard)).toEqual([0]);

  // 15 minutes on: links made from then on are spread by their task, and the task side names the shard.
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + SPREAD_AFTER_MS + 2_000);
  const spread = tasks('n', 40);
  await change('attach', spread);
  const sides = await labelSides();
  const shardOfTask = (t: string) => keys.labelLink(ws, label.id, project.id, t, shardOf(t, LABEL_LINK_SHARDS)).PK;
  for (const t of spread) expect(sides.get(t)).toBe(shardOfTask(t));
  expect(new Set(spread.map((t) => sides.get(t)))).toEqual(new Set(keys.labelCollectionShards(ws, label.id)));
  for (const link of await itemsOf(ws, ItemType.taskLink))
    expect(keys.labelLink(ws, label.id, project.id, link.task_uuid, link.label_shard ?? 0).PK).toBe(sides.get(link.task_uuid));

  // The held-up detach finds the link made again, in its own shard: it changes nothing (and reads again when retried).
  await change('detach', [raced]);
  await change('attach', [raced]);
  expect((await labelSides()).get(raced)).toBe(shardOfTask(raced));
  await expect(writeDetach(ws, projectRef, labelRef, [stale], actor)).rejects.toBeInstanceOf(TransactionCancelled);
  expect((await readTask(project.id, raced, await readTaskLayout(false))).links.map((l) => l.shard)).toEqual([
    shardOf(raced, LABEL_LINK_SHARDS),
  ]);
  expect((await labelSides()).get(raced)).toBe(shardOfTask(raced));

  // A label's tasks: every shard merged in task order, each once, at any page size; the cursor of before goes on.
  const all = [...before, ...meanwhile, ...spread];
  expect(await follow(ws, label.slug, project.slug, 3, first.nextCursor!)).toEqual(all.slice(2));
  for (const limit of [1, 7, 100]) expect(await follow(ws, label.slug, project.slug, limit)).toEqual(all);
  expect((await tasksWithLabel(ws, label.slug, project.slug, { limit: 7, page: 3 })).items).toEqual(all.slice(14, 21));

  // Detaches, a toggle and a deleted task take the label side away where it is, of before or spread; none is left behind.
  await change('detach', [before[1]!, meanwhile[2]!, ...spread.slice(0, 5)]);
  expect(await toggleTaskLabel(ws, label.slug, project.slug, spread[6]!, actor)).toEqual([]);
  await removeTaskLabels(ws, projectRef, spread[7]!);
  await removeTaskLabels(ws, projectRef, before[2]!);
  const gone = [before[1]!, before[2]!, meanwhile[2]!, ...spread.slice(0, 8).filter((t) => t !== spread[5])];
  const left = all.filter((t) => !gone.includes(t));
  expect([...(await labelSides()).keys()].sort()).toEqual(left);
  expect(await follow(ws, label.slug, project.slug, 9)).toEqual(left);
  await drain();
  expect((await checkTable([ws])).violations).toEqual([]);

  // npm run check:table knows the layout: a label side moved out of the shard its task side names is said.
  const stray = spread[9]!;
  const [strayItem] = (await itemsOf(ws, ItemType.labelLink)).filter((i) => i.task_uuid === stray);
  await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: strayItem!.PK, SK: strayItem!.SK } }));
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...strayItem, PK: shard0 } }));
  const linkId = `${ws}|${project.id}|${stray}|${label.id}`;
  expect((await checkTable([ws])).violations).toEqual([
    `label link ${linkId} is in ${shard0}, where its task-side half says ${strayItem!.PK}`,
  ]);
  await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: shard0, SK: strayItem!.SK } }));
  await db.send(new PutCommand({ TableName: tableName(), Item: strayItem }));
  // A second label side of one link (as a detach of the version before, after a rollback, would leave in shard 0).
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...strayItem, PK: shard0 } }));
  expect((await checkTable([ws])).violations).toEqual([
    `label link ${linkId} has a label side in each of ${[strayItem!.PK, shard0].sort().join(', ')}`,
    `label link ${linkId} is in ${shard0}, where its task-side half says ${strayItem!.PK}`,
  ]);
  await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: shard0, SK: strayItem!.SK } }));
  expect((await checkTable([ws])).violations).toEqual([]);

  // A second project's links of the label, spread in the same shards: each project's list has its own; a bulk detach
  // (two transactions) and the project's delete take their label sides from every shard.
  const other = await createProject(ws, { name: 'Other', owner: actor });
  const others = tasks('o', 40);
  const inOther = (how: 'attach' | 'detach', taskUuids: string[]) =>
    changeLabels(how, ws, { labelSlug: label.slug, projectSlug: other.slug, taskUuids }, actor);
  await inOther('attach', others);
  expect(await follow(ws, label.slug, other.slug, 9)).toEqual(others);
  expect(await follow(ws, label.slug, project.slug, 9)).toEqual(left);
  await inOther('detach', others.slice(0, 36));
  expect(
    (await itemsOf(ws, ItemType.labelLink))
      .filter((i) => i.project_id === other.id)
      .map((i) => i.task_uuid)
      .sort(),
  ).toEqual(others.slice(36));
  await deleteProject(ws, other.slug, actor);
  await drain();
  expect((await itemsOf(ws, ItemType.labelLink)).filter((i) => i.project_id === other.id)).toEqual([]);
  expect((await checkTable([ws])).violations).toEqual([]);

  // The label's delete takes every link of it, in every shard, both halves.
  await deleteLabel(ws, label.slug, actor);
  await drain();
  expect(await itemsOf(ws, ItemType.labelLink)).toEqual([]);
  expect(await itemsOf(ws, ItemType.taskLink)).toEqual([]);
  expect((await checkTable([ws])).violations).toEqual([]);
});
