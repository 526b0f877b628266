import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { copyTaskHome } from '#checker/taskMoves';
import { createLabel, deleteLabel } from '#domain/labels';
import { createProject, deleteProject } from '#domain/projects';
import { processStreamBatch } from '#events/processor';
import { db } from '#store/client';
import { taskSidesOf } from '#store/collections';
import { TransactionCancelled } from '#store/errors';
import { ItemType, keys, LABEL_LINK_SHARDS, TASK_SHARDS, WORKSPACE_COPIES } from '#store/keys';
import { writeProjectLabel } from '#store/labelSets';
import { labelLinkItem, taskLinkItem, taskVersionItem } from '#store/linkItems';
import { readTask, writeAttach } from '#store/links';
import { shardOf } from '#store/shards';
import { readTaskLayout } from '#store/taskLayoutReads';
import { homeShard } from '#store/taskShardLayout';
import { tableName } from '#store/table';
import { TOMBSTONE_TTL_SECONDS } from '#store/tombstones';
import { applyLinkDeltas } from '#store/counters';
import { applyStatsDeltas } from '#store/projectStats';
import { sentDuring } from '#support/history';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { usePrivateTable } from '#support/privateTable';

/**
 * Tombstones (store/tombstones.ts): a deleted project or label marks every shard of its collection, and a link (or a
 * label-set membership) is written only in a shard with no mark, instead of checking the project's and label's items
 * in the workspace's partition. A table of this file's own, that starts as the version before left it (no LAYOUT#GONE
 * item): for the deploy's window an attach checks the items too, and after it the marks alone. Each race is played out
 * step by step: an attach's read, then the delete, then the attach's transaction.
 */
const table = usePrivateTable(`tombstones-${Date.now()}`);
const checkpoints: Record<string, string> = {};
const drain = () => table.drain((batch: DynamoDBRecord[]) => processStreamBatch(batch, { publish: async () => {} }), checkpoints);
afterAll(() => vi.restoreAllMocks());

const actor = { name: 'Marks', username: 'marks' };
/** Tasks whose homes are every shard `shardOfTask` gives, one each. */
function tasksCovering(count: number, shardOfTask: (task: string) => number): string[] {
  const found = new Map<number, string>();
  for (let i = 0; found.size < count; i++) if (!found.has(shardOfTask(`t-${i}`))) found.set(shardOfTask(`t-${i}`), `t-${i}`);
  return [...found.values()];
}
/** What a transaction's cancellation says is gone: the project, the label, or neither. */
async function gone(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TransactionCancelled)) return error === undefined ? 'written' : String(error);
  return ['project', 'label'].filter((side) => error.conditionFailed(side)).join(' and ') || error.message;
}

test("in the deploy's window an attach checks the items too: a project the version before deleted (no marks) fails it", async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.tombstonesLayout() }));
  const ws = uniqueWorkspace('tombstones');
  const project = await createProject(ws, { name: 'Old delete', owner: actor });
  const label = await createLabel(ws, { title: 'Window', color: '112233' }, actor);
  const layout = await readTaskLayout(true);
  const read = await readTask(project.id, 'w-1', layout);
  // The version before deletes the project's item and marks nothing.
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.project(ws, project.slug) }));
  expect(await gone(writeAttach(ws, project, label, [read], actor))).toBe('project');
  expect(await gone(writeProjectLabel(ws, project, label, actor))).toBe('project');
  // After the window the marks alone are checked: the item is not read (no delete of the version before is left to
  // mark nothing; this one is the window's, played after it to show that the item is no longer looked at).
  clockAt(16);
  expect(await gone(writeAttach(ws, project, label, [read], actor))).toBe('written');
});

test('an attach or a label-set add that read before a delete fails on its mark in every shard; the cascade leaves the marks, which expire', async () => {
  clockAt(16);
  const ws = uniqueWorkspace('tombstones');
  const doomed = await createProject(ws, { name: 'Doomed', owner: actor });
  const stays = await createProject(ws, { name: 'Stays', owner: actor });
  const label = await createLabel(ws, { title: 'Doomed label', color: '112233' }, actor);
  const kept = await createLabel(ws, { title: 'Kept', color: '445566' }, actor);
  const layout = await readTaskLayout(true);
  // Links of both to delete with them: the cascades run, and leave the marks alone.
  await writeAttach(ws, doomed, kept, [await readTask(doomed.id, 'linked', layout)], actor);
  await writeAttach(ws, stays, label, [await readTask(stays.id, 'linked', layout)], actor);

  // A task of each home of the project, and of each shard of the label's collection, read before the deletes.
  const homes = tasksCovering(TASK_SHARDS, homeShard);
  const labelShards = tasksCovering(LABEL_LINK_SHARDS, (t) => shardOf(t, LABEL_LINK_SHARDS));
  const beforeProject = await Promise.all(homes.map((t) => readTask(doomed.id, t, layout)));
  const beforeLabel = await Promise.all(labelShards.map((t) => readTask(stays.id, t, layout)));
  expect(new Set(beforeProject.map((s) => s.linkShard)).size).toBe(TASK_SHARDS);

  await deleteProject(ws, doomed.slug, actor);
  await deleteLabel(ws, label.slug, actor);
  for (const state of beforeProject) expect(await gone(writeAttach(ws, doomed, kept, [state], actor))).toBe('project');
  for (const state of beforeLabel) expect(await gone(writeAttach(ws, stays, label, [state], actor))).toBe('label');
  expect(await gone(writeAttach(ws, doomed, label, beforeProject.slice(0, 3), actor))).toBe('project and label');
  expect(await gone(writeProjectLabel(ws, doomed, kept, actor))).toBe('project');
  expect(await gone(writeProjectLabel(ws, stays, label, actor))).toBe('label');
  // The live ones are not held up by the other's marks.
  expect(await gone(writeAttach(ws, stays, kept, [beforeLabel[0]!], actor))).toBe('written');

  await drain();
  const items = await scanTable([ws]);
  const left = (prefixes: string[]) => items.filter((i) => prefixes.includes(i.PK));
  const projectMarks = left(keys.projectShards(doomed.id));
  const labelMarks = left(keys.labelCollectionShards(ws, label.id));
  expect(projectMarks.map((i) => [i.PK, i.SK, i.type]).sort()).toEqual(
    keys
      .projectShards(doomed.id)
      .map((pk) => [pk, 'GONE', ItemType.tombstone])
      .sort(),
  );
  expect(labelMarks.map((i) => [i.PK, i.SK, i.type]).sort()).toEqual(
    keys
      .labelCollectionShards(ws, label.id)
      .map((pk) => [pk, 'GONE', ItemType.tombstone])
      .sort(),
  );
  for (const mark of [...projectMarks, ...labelMarks])
    expect(mark.ttl).toBe(Math.floor(Date.parse(mark.deleted_at) / 1000) + TOMBSTONE_TTL_SECONDS);
  expect((await checkTable([ws])).violations).toEqual([]);

  // The version before reads a label's whole collection, its job aside, in its cascade (a rollback, or its stream
  // processor mid-deploy): each item as a link or a membership, its task sides deleted, then the item. A mark names a
  // project and a task that are none: nothing real is deleted for it, and the cascade goes on.
  const sides = taskSidesOf(label.id, labelMarks, layout);
  expect([...sides.first, ...sides.then].length).toBeGreaterThan(0);
  for (const key of [...sides.first, ...sides.then]) expect(key.PK.startsWith(keys.projectShard('-', 0))).toBe(true);
});

test('npm run rekey moves nothing of a project deleted since its read: no version made, no link copied', async () => {
  clockAt(16);
  const ws = uniqueWorkspace('tombstones');
  const project = await createProject(ws, { name: 'Moving', owner: actor });
  const label = await createLabel(ws, { title: 'Old link', color: '112233' }, actor);
  // A link from before task versions were kept, in shard 0: a move gives the task a version first.
  const side = shardOf('lone', LABEL_LINK_SHARDS);
  for (const Item of [
    taskLinkItem(ws, project, label, 'lone', new Date().toISOString(), actor, side),
    labelLinkItem(ws, project, label, 'lone', new Date().toISOString(), side),
    // A task of before with its version in shard 0: a move copies its links home first.
    taskVersionItem(ws, project.id, 'kept', 1, 0),
    taskLinkItem(ws, project, label, 'kept', new Date().toISOString(), actor, shardOf('kept', LABEL_LINK_SHARDS)),
    labelLinkItem(ws, project, label, 'kept', new Date().toISOString(), shardOf('kept', LABEL_LINK_SHARDS)),
  ])
    await db.send(new PutCommand({ TableName: tableName(), Item }));
  await deleteProject(ws, project.slug, actor);
  for (const task of ['lone', 'kept']) {
    const error = await copyTaskHome(ws, project.id, task).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error instanceof TransactionCancelled && error.conditionFailed('project'), task).toBe(true);
  }
  await drain();
  expect((await scanTable([ws])).filter((i) => i.type === ItemType.taskVersion || i.type === ItemType.taskLink)).toEqual([]);
});

test("the stream's counter writes check the project's mark in its first partition, not its item; its item as well for a day after the window", async () => {
  const ws = uniqueWorkspace('tombstones');
  const label = await createLabel(ws, { title: 'Counted', color: '112233' }, actor);
  const late = (n: number) => [{ eventId: `evt-late-${ws}-${n}`, delta: 1 as const }];
  const counted = (projectId: string) =>
    scanTable([ws]).then((items) => items.filter((i) => i.PK.startsWith(keys.projectShard(projectId, 0)) && i.SK !== 'GONE'));

  // Within a day of the window: a project the version before deleted (its item removed, no marks) fails the item's check.
  clockAt(16);
  const old = await createProject(ws, { name: 'Old counted', owner: actor });
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.project(ws, old.slug) }));
  expect(await applyLinkDeltas(ws, old, label.id, late(1), true)).toBe('project gone');
  expect(await applyStatsDeltas(ws, old, [{ eventId: `evt-late-${ws}-2`, delta: { tasks_count: 1 } }])).toBe('project gone');
  expect(await counted(old.id)).toEqual([]);

  // A day after the window the mark alone is checked: WS#<ws> is not in the transaction.
  clockAt(16 + 24 * 60);
  const live = await createProject(ws, { name: 'Live counted', owner: actor });
  const { result, parts } = await sentDuring(() => applyLinkDeltas(ws, live, label.id, late(3), true));
  expect(result).toBe(1);
  const sent: string[] = [];
  const name = `counterKeys${Math.random()}`;
  db.middlewareStack.add(
    (next) => async (args) => {
      sent.push(JSON.stringify(args.input));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    expect(await applyStatsDeltas(ws, live, [{ eventId: `evt-late-${ws}-4`, delta: { tasks_count: 1 } }])).toBe(1);
    expect(await applyLinkDeltas(ws, live, label.id, late(5), true)).toBe(1);
  } finally {
    db.middlewareStack.remove(name);
  }
  expect(parts).toContain('ConditionCheck');
  expect(sent.some((input) => input.includes(`"${keys.projectTombstone(live.id, 0).PK}"`))).toBe(true);
  expect(sent.filter((input) => input.includes(`"WS#${ws}"`))).toEqual([]);
  // The same late record after its project's delete (marks made; the cascade has run) fails on the mark: nothing is left.
  await deleteProject(ws, live.slug, actor);
  await drain();
  expect(await applyLinkDeltas(ws, live, label.id, late(6), true)).toBe('project gone');
  expect(await applyStatsDeltas(ws, live, [{ eventId: `evt-late-${ws}-7`, delta: { members_count: 1 } }])).toBe('project gone');
  expect(await counted(live.id)).toEqual([]);
  expect((await scanTable([ws])).filter((i) => i.PK === keys.projectStats(ws, live.slug).PK)).toEqual([]);
  // The version before's delete left the old project's copies (store/copies.ts): rekey's copy step takes them, as after
  // any deploy.
  expect(await rekeyTable({ workspaces: [ws] })).toMatchObject({ projectCopies: 1, conflicts: [] });
  expect((await checkTable([ws])).violations).toEqual([]);
});

test("in the deploy's window a create's copies check its item as created, after it its mark alone: a delete with no mark between", async () => {
  // The real clock, and the table as the version before left it (no LAYOUT#GONE item): the next write makes it, so the
  // window is on (when the file's first test ran before, the item it made is remembered, minutes ago: still within).
  vi.restoreAllMocks();
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.tombstonesLayout() }));
  const ws = uniqueWorkspace('tombstones');
  const copies = async (slug: string) =>
    (
      await Promise.all(
        Array.from({ length: WORKSPACE_COPIES }, (_, n) =>
          db.send(new GetCommand({ TableName: tableName(), Key: keys.projectCopy(ws, slug, n), ConsistentRead: true })),
        ),
      )
    ).filter((r) => r.Item).length;
  const made = await createProject(ws, { name: 'Window create', owner: actor });
  expect(await copies(made.slug)).toBe(WORKSPACE_COPIES);
  // The version before deletes the project's item (and marks nothing) between a create's put and its copies: in the
  // window the copies check the item, and none are put; after it they check the mark alone (no mark: put).
  const deleteBetween = async (slug: string): Promise<number> => {
    const doomed = keys.project(ws, slug);
    let put = false;
    let deleted = false;
    const name = `deleteBetween${Math.random()}`;
    db.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Item?: { PK?: string; SK?: string }; TransactItems?: unknown[] };
        if (input.Item?.PK === doomed.PK && input.Item.SK === doomed.SK) put = true;
        else if (put && !deleted && input.TransactItems) {
          deleted = true;
          await db.send(new DeleteCommand({ TableName: tableName(), Key: doomed }));
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await createProject(ws, { name: slug.replace('-', ' '), owner: actor });
    } finally {
      db.middlewareStack.remove(name);
    }
    expect(deleted).toBe(true);
    return copies(slug);
  };
  expect(await deleteBetween('within-window')).toBe(0);
  clockAt(16);
  expect(await deleteBetween('after-window')).toBe(WORKSPACE_COPIES);
});
