import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { createLabel, deleteLabel } from '#domain/labels';
import { LimitReached } from '#domain/errors';
import { MAX_LABELS_PER_WORKSPACE } from '#domain/limits';
import type { LabelRecord } from '#domain/entities';
import { db } from '#store/client';
import { ItemType, keys, type Key } from '#store/keys';
import { moveTally } from '#store/labelTally';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { partitionWrites, sentDuring } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * A workspace's label count and id counter (its tally) in a partition of their own (store/labelTally.ts), played
 * through a deploy on a table of this file's own, started as the version before left it (no LAYOUT#LABELTALLY item:
 * tallies in the workspace's partition).
 */
usePrivateTable(`label-tally-${Date.now()}`);
afterAll(() => vi.restoreAllMocks());
const actor = { name: 'Tally', username: 'tally' };

const read = async (Key: Key) => (await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;

/** The workspace's tally, in its partition (`ws`) and in its own (`own`): each count and counter as kept. */
async function tallyOf(ws: string) {
  const [count, counter, ownCount, ownCounter] = await Promise.all(
    [keys.labelCount(ws), keys.labelIdCounter(ws), keys.labelCountOwn(ws), keys.labelIdCounterOwn(ws)].map(read),
  );
  const kept = (i: Record<string, unknown> | undefined, field: string) =>
    i && { [field]: i[field], ...(i.sealed === undefined ? {} : { sealed: true }) };
  return {
    ws: { count: kept(count, 'count'), counter: kept(counter, 'next_id') },
    own: { count: kept(ownCount, 'count'), counter: kept(ownCounter, 'next_id') },
  };
}

/** `n` creates at once: those refused are refused for the limit alone. */
async function concurrentCreates(ws: string, n: number, title: string): Promise<LabelRecord[]> {
  const made = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => createLabel(ws, { title: `${title} ${i}`, color: '202020' }, actor)),
  );
  for (const m of made) if (m.status === 'rejected') expect(m.reason).toBeInstanceOf(LimitReached);
  return made.flatMap((m) => (m.status === 'fulfilled' ? [m.value] : []));
}

type Sent = (command: string, input: Record<string, unknown>) => boolean;

/** Runs `action` once, just before the first command `run` sends that `at` picks (after what it sent before). */
async function beforeNext<T>(at: Sent, action: () => Promise<unknown>, run: () => Promise<T>): Promise<T> {
  let pending: (() => Promise<unknown>) | undefined = action;
  const name = `beforeNext${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const act = pending && at(context.commandName!, args.input as Record<string, unknown>) ? pending : undefined;
      if (act) {
        pending = undefined;
        await act();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return await run();
  } finally {
    db.middlewareStack.remove(name);
  }
}

const ids = (labels: LabelRecord[]) => labels.map((l) => l.id);

/**
 * Labels a count says the workspace holds beyond those it does, so that a few creates reach the limit; `pretend(key,
 * -PRETEND)` puts the count right again before the checker reads it.
 */
const PRETEND = MAX_LABELS_PER_WORKSPACE - 6;
const pretend = (Key: Key, n: number) =>
  db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key,
      UpdateExpression: 'ADD #count :n',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':n': n },
    }),
  );
const aTransaction: Sent = (command) => command === 'TransactWriteItemsCommand';
/** A command on item `key` (its `n`th, counting from 1). */
const onItem = (command: string, key: Key, n = 1): Sent => {
  let seen = 0;
  return (sent, input) => {
    const k = input.Key as Key | undefined;
    return sent === command && k?.PK === key.PK && k.SK === key.SK && ++seen === n;
  };
};

test("a deploy played through: the workspace's tally holds until it is moved, a move racing creates loses no count and reuses no id, rekey moves the rest", async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelTallyLayout() }));
  const [ws, other, raced] = [uniqueWorkspace('tally'), uniqueWorkspace('tally'), uniqueWorkspace('tally')];
  // Rekey before any label write makes no LAYOUT item and says it waits for one.
  expect((await rekeyTable({ dryRun: true, workspaces: [ws] })).labelTallyAfter).toBe("15 minutes after this version's first label write");
  expect(await read(keys.labelTallyLayout())).toBeUndefined();

  // While the version before may run: the workspace's count and counter, as it keeps them.
  const a = await createLabel(ws, { title: 'A', color: '000000' }, actor);
  expect(await tallyOf(ws)).toEqual({
    ws: { count: { count: 1 }, counter: { next_id: a.id } },
    own: { count: undefined, counter: undefined },
  });
  // The version before made and deleted 40 labels meanwhile: its counter moved on.
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.labelIdCounter(ws),
      UpdateExpression: 'ADD next_id :n',
      ExpressionAttributeValues: { ':n': 40 },
    }),
  );
  const b = await createLabel(ws, { title: 'B', color: '000000' }, actor);
  expect(b.id).toBe(a.id + 41);
  await deleteLabel(ws, a.slug, actor);
  await createLabel(other, { title: 'Other', color: '000000' }, actor);
  expect((await checkTable([ws, other])).violations).toEqual([]);
  const early = await rekeyTable({ workspaces: [ws, other] });
  expect(early).toMatchObject({ labelTallies: 2, conflicts: [] });
  expect(early.labelTallyAfter).toMatch(/^\d{4}-/);
  expect((await tallyOf(ws)).own).toEqual({ count: undefined, counter: undefined });

  // A function past the window moves the tally between a create's reads and its transaction: the create, which went by
  // the workspace's tally and took an id there, finds it sealed and is made again on the own one, under the id it took
  // (the move carried the counter on from it: the own one gives the next).
  const c = await beforeNext(
    aTransaction,
    () => moveTally(ws),
    () => createLabel(ws, { title: 'C', color: '000000' }, actor),
  );
  expect(c.id).toBe(b.id + 1);
  expect(await tallyOf(ws)).toEqual({
    ws: { count: { count: 1, sealed: true }, counter: { next_id: b.id + 1, sealed: true } },
    own: { count: { count: 2 }, counter: { next_id: c.id } },
  });
  // Still inside the window by this clock: a sealed tally sends every write to the own one. The limit holds there.
  await pretend(keys.labelCountOwn(ws), PRETEND);
  const more = await concurrentCreates(ws, 6, 'More');
  expect(more).toHaveLength(4);
  expect(new Set([...ids(more), b.id, c.id]).size).toBe(6);
  expect(Math.min(...ids(more))).toBeGreaterThan(c.id);
  expect((await tallyOf(ws)).own.count).toEqual({ count: MAX_LABELS_PER_WORKSPACE });
  expect(await partitionWrites(keys.workspace(ws), () => deleteLabel(ws, more[0]!.slug, actor))).toBe(1);
  await pretend(keys.labelCountOwn(ws), -PRETEND);
  expect((await tallyOf(ws)).own.count).toEqual({ count: 5 });

  // A create by the workspace's tally between a mover's reads and its transaction: the move, made on what it read, is
  // refused, and made again from what the create left (a move that went by its reads would count one less, and give
  // the create's id again).
  const late = uniqueWorkspace('tally');
  await createLabel(late, { title: 'First', color: '000000' }, actor);
  let between: LabelRecord | undefined;
  await beforeNext(
    aTransaction,
    async () => (between = await createLabel(late, { title: 'Between', color: '000000' }, actor)),
    () => moveTally(late),
  );
  const after = await createLabel(late, { title: 'After', color: '000000' }, actor);
  expect(after.id).toBe(between!.id + 1);
  expect(await tallyOf(late)).toEqual({
    ws: { count: { count: 2, sealed: true }, counter: { next_id: between!.id, sealed: true } },
    own: { count: { count: 3 }, counter: { next_id: after.id } },
  });

  // A delete whose count part was made before a move (a guess, kept and open) and is written after it: refused there,
  // made on the own one.
  const dropping = uniqueWorkspace('tally');
  const kept = await createLabel(dropping, { title: 'Kept', color: '000000' }, actor);
  const dropped = await createLabel(dropping, { title: 'Dropped', color: '000000' }, actor);
  await beforeNext(
    aTransaction,
    () => moveTally(dropping),
    () => deleteLabel(dropping, dropped.slug, actor),
  );
  expect(await tallyOf(dropping)).toEqual({
    ws: { count: { count: 2, sealed: true }, counter: { next_id: dropped.id, sealed: true } },
    own: { count: { count: 1 }, counter: { next_id: dropped.id } },
  });
  expect((await scanTable([dropping])).filter((i) => i.type === ItemType.label).map((l) => l.id)).toEqual([kept.id]);

  // A workspace with no tally yet, moved between a create's look at it (none) and its transaction: the move marks where
  // none was (sealed, with nothing in it), the create's first count (store/workspaceCounts.ts: a workspace new to the
  // instance has its count read, and one started where none is kept) is refused on the mark, and its next try goes to the
  // own tally, under the id its first took (from the workspace's counter, before the move sealed it).
  const empty = uniqueWorkspace('tally');
  const first = await beforeNext(
    aTransaction,
    () => moveTally(empty),
    () => createLabel(empty, { title: 'First', color: '000000' }, actor),
  );
  expect(first.id).toBe(1);
  expect(await tallyOf(empty)).toEqual({
    ws: { count: { sealed: true }, counter: { next_id: 1, sealed: true } },
    own: { count: { count: 1 }, counter: { next_id: 1 } },
  });
  // Moved between a create's look at the tally (none; the look reads the count's item) and its read of the count (the
  // workspace is new to the instance): the read finds the mark, the part it makes of it is a check that fails on it, and
  // the next try goes to the own tally, where it takes its id (the move sealed the workspace's counter before the create
  // took one). Two tries of the create's, and the move's transaction.
  const marked = uniqueWorkspace('tally');
  const tries = await sentDuring(() =>
    beforeNext(
      onItem('GetItemCommand', keys.labelCount(marked), 2),
      () => moveTally(marked),
      () => createLabel(marked, { title: 'First', color: '000000' }, actor),
    ),
  );
  expect(tries.result.id).toBe(1);
  expect(tries.commands.filter((c) => c === 'TransactWriteItemsCommand')).toHaveLength(3);
  expect(await tallyOf(marked)).toEqual({
    ws: { count: { sealed: true }, counter: { sealed: true } },
    own: { count: { count: 1 }, counter: { next_id: 1 } },
  });
  // Moved between a create's look at the tally and its id: the id comes from the own counter, and the create, refused
  // on the workspace's sealed count, is made again there, under that id.
  const between2 = uniqueWorkspace('tally');
  await createLabel(between2, { title: 'One', color: '000000' }, actor);
  const two = await beforeNext(
    onItem('UpdateItemCommand', keys.labelIdCounter(between2)),
    () => moveTally(between2),
    () => createLabel(between2, { title: 'Two', color: '000000' }, actor),
  );
  expect(await tallyOf(between2)).toEqual({
    ws: { count: { count: 1, sealed: true }, counter: { next_id: 1, sealed: true } },
    own: { count: { count: 2 }, counter: { next_id: two.id } },
  });
  expect(two.id).toBe(2);

  // Movers racing creates: whichever wins, ids stay distinct, the count exact, the limit kept.
  await createLabel(raced, { title: 'First', color: '000000' }, actor);
  await pretend(keys.labelCount(raced), PRETEND);
  const [, , racing] = await Promise.all([moveTally(raced), moveTally(raced), concurrentCreates(raced, 6, 'Race')]);
  expect(racing).toHaveLength(5);
  const all = (await scanTable([raced])).filter((i) => i.type === ItemType.label);
  expect(new Set(all.map((l) => l.id)).size).toBe(6);
  expect((await tallyOf(raced)).own.count).toEqual({ count: MAX_LABELS_PER_WORKSPACE });
  await pretend(keys.labelCountOwn(raced), -PRETEND);
  expect((await checkTable([ws, other, raced, late, dropping, empty, marked, between2])).violations).toEqual([]);

  // Past the window (and a function's longest write after it): rekey moves the workspace left, and the whole table's run
  // says all are moved.
  clockAt(16.5);
  expect((await rekeyTable({ dryRun: true, workspaces: [other] })).labelTallyAfter).toMatch(/^\d{4}-/);
  clockAt(17.5);
  const run = await rekeyTable();
  expect(run).toMatchObject({ labelTallies: 1, conflicts: [] });
  expect(run.labelTallyAfter).toBeUndefined();
  expect(await tallyOf(other)).toEqual({
    ws: { count: { count: 1, sealed: true }, counter: { next_id: 1, sealed: true } },
    own: { count: { count: 1 }, counter: { next_id: 1 } },
  });
  expect(await read(keys.labelTallyLayout())).toMatchObject({ type: ItemType.labelTallyLayout, moved_at: expect.any(String) });
  // From then (and a function's relook) a create writes its label alone in the workspace's partition, a new workspace's
  // first too, in one try (new to the instance, its count is read first: store/workspaceCounts.ts).
  clockAt(23);
  const newcomer = uniqueWorkspace('tally');
  expect(await partitionWrites(keys.workspace(newcomer), () => createLabel(newcomer, { title: 'New', color: '000000' }, actor))).toBe(1);
  expect(await tallyOf(newcomer)).toEqual({
    ws: { count: undefined, counter: undefined },
    own: { count: { count: 1 }, counter: { next_id: 1 } },
  });
  const next = await partitionWrites(keys.workspace(other), () => createLabel(other, { title: 'Next', color: '000000' }, actor));
  expect(next).toBe(1);
  expect((await tallyOf(other)).own).toEqual({ count: { count: 2 }, counter: { next_id: 2 } });
  expect((await rekeyTable({ workspaces: [other] })).labelTallies).toBe(0);
  expect((await checkTable([ws, other, raced, late, dropping, empty, between2, newcomer])).violations).toEqual([]);
});

test('the checker names a tally kept in two places, one sealed with none of its own, a counter below the sealed one, and a deleted label above its counter', async () => {
  const [two, lost, below, gone] = [uniqueWorkspace('tally'), uniqueWorkspace('tally'), uniqueWorkspace('tally'), uniqueWorkspace('tally')];
  const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: tableName(), Item }));
  await put({ ...keys.labelIdCounter(two), type: ItemType.labelIdCounter, workspace: two, next_id: 3 });
  await put({ ...keys.labelIdCounterOwn(two), type: ItemType.labelIdCounter, workspace: two, next_id: 3 });
  await put({ ...keys.labelCount(lost), type: ItemType.labelCount, workspace: lost, count: 0, sealed: '2026-01-01T00:00:00.000Z' });
  await put({
    ...keys.labelIdCounter(below),
    type: ItemType.labelIdCounter,
    workspace: below,
    next_id: 9,
    sealed: '2026-01-01T00:00:00.000Z',
  });
  await put({ ...keys.labelIdCounterOwn(below), type: ItemType.labelIdCounter, workspace: below, next_id: 5 });
  await put({ ...keys.labelIdCounterOwn(gone), type: ItemType.labelIdCounter, workspace: gone, next_id: 3 });
  await put({ ...keys.labelDeletion(gone, 7), type: ItemType.labelDeletion, workspace: gone, label_id: 7, label_slug: 'seven' });
  expect((await checkTable([two, lost, below, gone])).violations).toEqual([
    `${ItemType.labelIdCounter} of ${two} is kept in 2 places, none sealed`,
    `the label id counter of ${below} is at 5, below the sealed one's 9`,
    `${ItemType.labelCount} ${keys.labelCount(lost).PK} / LABELCOUNT is sealed, and ${lost} has no tally of its own`,
    `label ${gone}/seven has id 7 above the workspace counter 3`,
  ]);
});
