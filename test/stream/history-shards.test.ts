import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from 'vitest';
import type { ActivityQuery } from '#domain/activity';
import { listActivity } from '#domain/activityReads';
import { appendActivity } from '#store/activityLog';
import type { NewEntry } from '#store/activityLayout';
import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { historySpread } from '#lib/capacity/spread';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { checkTable, scanTable } from '#lib/checker/invariants';
import { TABLE, tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { attachedEntry, sentDuring } from '#support/history';

/**
 * The history's shards grew (the workspace's from 4 to 8, its marks from 4 to 8; a project's and a task's
 * copies from one partition to 8 and 4) with nothing moved: what the version before wrote is read where it
 * is, beside what this one writes, its cursors go on, and a stream record it recorded, delivered again to
 * this one, is still recorded once. For SPREAD_AFTER_MS after this version first writes histories (a workspace's
 * LAYOUT says when), it writes as the version before did, so that a function of that version (mid-deploy, or after a
 * rollback) misses nothing (history-window.test.ts: the service's first write). In process against the suite's
 * DynamoDB Local; "before" is written as that version wrote it.
 */
const RETENTION_MS = 86_400_000;
const PROJECT = 'prj_shards';
const TASK = 'task-1';

/** The same ids in every workspace (marks are the workspace's): the shards they fall in are known, so are those below. */
const entryOf = (ws: string, n: number, occurredAt: string): NewEntry =>
  attachedEntry(ws, n, occurredAt, { projectSlug: 'shards', projectId: PROJECT, task: TASK, eventId: `evt-${n}` });

/** Where the version before made an event's mark: shard `hash % 4`. */
const markBefore = (ws: string, eventId: string) => keys.earlierActivityMark(ws, eventId) ?? keys.activityMark(ws, eventId);

/** Entries 1..n as the version before recorded them: its 4 shards, one partition per copy, its marks, its position (no marks_since). */
async function recordedBefore(ws: string, n: number, at: (i: number) => string) {
  const ttl = Math.ceil((Date.now() + RETENTION_MS) / 1000);
  const items = Array.from({ length: n }, (_, k) => k + 1).flatMap((i) => {
    const e = entryOf(ws, i, at(i));
    const sortKey = keys.activitySortKey(at(i), i);
    const body = { SK: sortKey, type: ItemType.activity, workspace: ws, entry: { ...e, sequence: i, recorded_at: at(i) } };
    const item = { ...body, expires_at: Date.now() + RETENTION_MS, [TABLE.timeToLive]: ttl };
    return [
      { ...item, PK: keys.activityShards(ws)[i % 4]! },
      { ...item, PK: keys.projectActivityPartitions(ws, PROJECT)[0]! },
      { ...item, PK: keys.taskActivityPartitions(ws, TASK)[0]! },
      { ...markBefore(ws, e.event_id), type: ItemType.activityMark, workspace: ws, sort_key: sortKey, [TABLE.timeToLive]: ttl },
    ];
  });
  for (let i = 0; i < items.length; i += 25)
    await db.send(
      new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
    );
  const position = { ...keys.activitySequence(ws), type: ItemType.activitySequence, workspace: ws, sequence: n, at: at(n) };
  await db.send(new PutCommand({ TableName: tableName(), Item: position }));
}

/** As if this version had first written the workspace's history 15 minutes and a second ago: its entries are spread now. */
const spreadBegun = (ws: string) => historySpread(ws, new Date(Date.now() - SPREAD_AFTER_MS - 1_000).toISOString());
/** As if this version had begun to write the workspace's history a moment ago (during a deploy): written as before. */
const deployBegun = (ws: string) => historySpread(ws, new Date().toISOString());

/** The partitions the entries of `events` are kept in. */
async function partitionsOf(ws: string, events: string[]) {
  const items = (await scanTable([ws])).filter((i) => i.type === ItemType.activity && events.includes(i.entry.event_id));
  return new Set(items.map((i) => i.PK as string));
}

/** Every entry of a query, page by page, following each cursor from `cursor` on. */
async function follow(ws: string, q: ActivityQuery, cursor?: string, limit = 3) {
  const ids: string[] = [];
  for (let page = await listActivity(ws, q, { limit, cursor }); ; page = await listActivity(ws, q, { limit, cursor: page.nextCursor! })) {
    ids.push(...page.items.map((e) => e.event_id));
    if (page.items.length === 0 || page.nextCursor === null) return { ids, cursor: page.nextCursor };
  }
}

const project: ActivityQuery = { context: 'project', projectSlug: 'shards', projectId: PROJECT, order: 'desc' };
const task: ActivityQuery = { context: 'project', projectSlug: 'shards', projectId: PROJECT, task: TASK, order: 'desc' };
const workspace: ActivityQuery = { context: 'company', order: 'desc' };

describe('the history after its shards grew', () => {
  test('reads what was recorded before beside what is recorded now, and cursors minted before go on, each entry once, in order', async () => {
    const ws = uniqueWorkspace('shards');
    const base = Date.now() - 60_000;
    await recordedBefore(ws, 6, (i) => new Date(base + i).toISOString());
    const before = Array.from({ length: 6 }, (_, k) => `evt-${k + 1}`);
    // Cursors of before: newest first after two entries, and oldest first a sync token caught up with entry 6.
    const pages = await Promise.all([project, task, workspace].map((q) => listActivity(ws, q, { limit: 2 })));
    const tokens = await Promise.all([project, task, workspace].map(async (q) => (await follow(ws, { ...q, order: 'asc' })).cursor!));
    for (const page of pages) expect(page.items.map((e) => e.event_id)).toEqual(before.slice(4).reverse());

    // Written by this version in its first 15 minutes: as the version before would, where its readers look (4 shards, one partition a copy).
    await deployBegun(ws);
    const meanwhile = Array.from({ length: 8 }, (_, k) => entryOf(ws, 7 + k, new Date().toISOString()));
    expect(await appendActivity(meanwhile, RETENTION_MS)).toBe(8);
    const layoutBefore = [
      ...keys.activityShards(ws).slice(0, 4),
      keys.projectActivityPartitions(ws, PROJECT)[0],
      keys.taskActivityPartitions(ws, TASK)[0],
    ];
    expect(
      [
        ...(await partitionsOf(
          ws,
          meanwhile.map((e) => e.event_id),
        )),
      ].every((pk) => layoutBefore.includes(pk)),
    ).toBe(true);
    // Then spread over every shard.
    await spreadBegun(ws);
    const now = Array.from({ length: 24 }, (_, k) => entryOf(ws, 15 + k, new Date().toISOString()));
    expect(await appendActivity(now, RETENTION_MS)).toBe(24);
    const after = [...meanwhile, ...now].map((e) => e.event_id);
    for (const [i, q] of [project, task, workspace].entries()) {
      // The old cursor, newest first, goes on to the oldest entries; the old sync token sees the new ones, once.
      expect((await follow(ws, q, pages[i]!.nextCursor!)).ids).toEqual(before.slice(0, 4).reverse());
      expect((await follow(ws, { ...q, order: 'asc' }, tokens[i])).ids).toEqual(after);
      expect((await follow(ws, q)).ids).toEqual([...before, ...after].reverse());
    }
    // Where they went: the spread entries over every shard of each copy, the old ones left where they were.
    const spread = await partitionsOf(
      ws,
      now.map((e) => e.event_id),
    );
    for (const shards of [keys.projectActivityPartitions(ws, PROJECT), keys.taskActivityPartitions(ws, TASK), keys.activityShards(ws)])
      expect(shards.every((pk) => spread.has(pk))).toBe(true);
    expect(await partitionsOf(ws, before)).toEqual(new Set(layoutBefore));
    const items = (await scanTable([ws])).filter((i) => i.type === ItemType.activity);
    // npm run check:table knows the layout: all of that is where reads find it; an entry or a mark past the shards is not.
    expect((await checkTable([ws])).violations).toEqual([]);
    const entry = items.find((i) => i.PK === keys.projectActivityPartitions(ws, PROJECT)[0])!;
    const mark = { ...keys.activityMark(ws, 'evt-stray'), type: ItemType.activityMark, workspace: ws, sort_key: entry.SK };
    for (const Item of [
      { ...entry, PK: `${entry.PK}#SHARD#9` },
      { ...mark, PK: `ACTIVITY#${ws}#MARKS#9` },
    ])
      await db.send(new PutCommand({ TableName: tableName(), Item }));
    expect((await checkTable([ws])).violations.sort()).toEqual([
      `history entry ${entry.PK}#SHARD#9 / ${entry.SK} is in a partition no read of the history reads`,
      `history mark ACTIVITY#${ws}#MARKS#9 / EVENT#evt-stray is in a shard where a record delivered again is not looked for`,
    ]);
  });

  test('a record the version before recorded, delivered again now, is recorded once; an event after the change is marked where marks go now', async () => {
    const ws = uniqueWorkspace('marks');
    const base = Date.now() - 60_000;
    const at = (i: number) => new Date(base + i).toISOString();
    // Twelve events: about half have their mark of before in another shard than today's.
    await recordedBefore(ws, 12, at);
    await deployBegun(ws);
    const moved = Array.from({ length: 12 }, (_, k) => entryOf(ws, k + 1, at(k + 1))).filter((e) =>
      keys.earlierActivityMark(ws, e.event_id),
    );
    expect(moved.length).toBeGreaterThan(0);
    // Delivered again, alone and beside a new event (one transaction), while marks are still made as before: only the new one is written.
    expect(await appendActivity([moved[0]!], RETENTION_MS)).toBe(0);
    const meanwhile = entryOf(ws, 13, new Date().toISOString());
    expect(await appendActivity([...moved, meanwhile], RETENTION_MS)).toBe(1);
    // Once spread: those records delivered again are still recorded once, and a new event is marked where marks go now.
    // The one recorded in the 15 minutes first, alone: it happened just before the spread (a writer's clock may run ahead of it).
    await spreadBegun(ws);
    expect(await appendActivity([meanwhile], RETENTION_MS)).toBe(0);
    expect(await appendActivity([...moved, meanwhile], RETENTION_MS)).toBe(0);
    const fresh = entryOf(ws, 14, new Date().toISOString());
    expect(await appendActivity([fresh, moved[0]!], RETENTION_MS)).toBe(1);
    const ids = (await follow(ws, workspace, undefined, 100)).ids;
    expect(ids).toHaveLength(14);
    expect(new Set(ids).size).toBe(14);
    const { Item: position } = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.activitySequence(ws), ConsistentRead: true }),
    );
    expect(position).toMatchObject({ sequence: 14 });
    const { Item: mark } = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.activityMark(ws, fresh.event_id), ConsistentRead: true }),
    );
    expect(mark).toBeDefined();
    expect(await appendActivity([fresh, meanwhile, ...moved], RETENTION_MS)).toBe(0);
    // A function of the version before, still running, rewrites the position whole: the spread goes on (the layout is
    // beside it), and nothing is recorded twice.
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.activitySequence(ws), type: ItemType.activitySequence, workspace: ws, sequence: 14, at: new Date().toISOString() },
      }),
    );
    const later = Array.from({ length: 8 }, (_, k) => entryOf(ws, 40 + k, new Date().toISOString()));
    expect(await appendActivity([fresh, ...later, ...moved], RETENTION_MS)).toBe(8);
    const used = await partitionsOf(
      ws,
      later.map((e) => e.event_id),
    );
    expect(keys.projectActivityPartitions(ws, PROJECT).every((pk) => used.has(pk))).toBe(true);
  });

  test("however projects' changes interleave, no copy's shard takes more entries than the workspace's shards of its number", async () => {
    const ws = uniqueWorkspace('interleaved');
    await spreadBegun(ws);
    const other = (e: NewEntry) => ({ ...e, project_id: 'prj_other', project_slug: 'other' });
    // In turn within a batch, then batches of 3 and 5 of each in turn, then one project alone.
    const one = Array.from({ length: 24 }, (_, k) => entryOf(ws, 100 + k, new Date().toISOString()));
    expect(
      await appendActivity(
        one.map((e, k) => (k % 2 ? e : other(e))),
        RETENTION_MS,
      ),
    ).toBe(24);
    for (const [b, size] of [3, 5, 3, 5, 3, 5].entries()) {
      const batch = Array.from({ length: size }, (_, k) => entryOf(ws, 200 + 10 * b + k, new Date().toISOString()));
      expect(await appendActivity(b % 2 ? batch : batch.map(other), RETENTION_MS)).toBe(size);
    }
    const alone = Array.from({ length: 16 }, (_, k) => entryOf(ws, 300 + k, new Date().toISOString()));
    expect(await appendActivity(alone, RETENTION_MS)).toBe(16);
    const items = (await scanTable([ws])).filter((i) => i.type === ItemType.activity);
    const count = (pk: string) => items.filter((i) => i.PK === pk).length;
    // A copy of S shards: its shard n takes places that are n modulo S, as the workspace's shards of those numbers do together.
    const workspaceShards = (n: number, shards: number) =>
      keys.activityShards(ws).reduce((sum, pk, m) => sum + (m % shards === n ? count(pk) : 0), 0);
    for (const copy of [
      keys.projectActivityPartitions(ws, PROJECT),
      keys.projectActivityPartitions(ws, 'prj_other'),
      keys.taskActivityPartitions(ws, TASK),
    ])
      for (const [n, pk] of copy.entries()) expect(count(pk)).toBeLessThanOrEqual(workspaceShards(n, copy.length));
    // And a project changed alone fills every shard of its copy.
    const used = await partitionsOf(
      ws,
      alone.map((e) => e.event_id),
    );
    expect(keys.projectActivityPartitions(ws, PROJECT).every((pk) => used.has(pk))).toBe(true);
  });

  test("a workspace new to the history, once this version's 15 minutes are over, is spread from its first entry, checked against no mark of before", async () => {
    const ws = uniqueWorkspace('firstmarks');
    const entries = Array.from({ length: 16 }, (_, k) => entryOf(ws, 1 + k, new Date().toISOString()));
    const { result, parts } = await sentDuring(() => appendActivity(entries, RETENTION_MS));
    expect(result).toBe(16);
    // The suite's table was made new (npm start): no version before wrote it, so the service's layout is as of long ago.
    expect(parts).toContain('Put');
    expect(parts).not.toContain('ConditionCheck');
    const spread = await partitionsOf(
      ws,
      entries.map((e) => e.event_id),
    );
    for (const shards of [keys.projectActivityPartitions(ws, PROJECT), keys.taskActivityPartitions(ws, TASK), keys.activityShards(ws)])
      expect(shards.every((pk) => spread.has(pk))).toBe(true);
    const { Item: layout } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.activityLayout(ws), ConsistentRead: true }));
    expect(layout?.sharded_since).toBe(new Date(0).toISOString());
    // Its layout is spread for good: read with the position once more, then the position alone (one read unit, not two).
    const { commands } = await sentDuring(async () => {
      for (const n of [40, 41]) expect(await appendActivity([entryOf(ws, n, new Date().toISOString())], RETENTION_MS)).toBe(1);
    });
    expect(commands).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });
});
