import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { createLabel, deleteLabel } from '#domain/labels';
import { LimitReached } from '#domain/errors';
import type { LabelRecord } from '#domain/entities';
import { db } from '#store/client';
import { ItemType, keys, type Key } from '#store/keys';
import { moveTally } from '#store/labelTally';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { partitionWrites } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * A workspace's label count and id counter (its tally) in a partition of their own (store/labelTally.ts), played
 * through a deploy on a table of this file's own, started as the version before left it (no LAYOUT#LABELTALLY item:
 * tallies in the workspace's partition). The limit is 6 labels here, so that the races below reach it.
 */
vi.mock('#domain/limits', async (original) => ({ ...(await original<typeof import('#domain/limits')>()), MAX_LABELS_PER_WORKSPACE: 6 }));
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

/** Runs `action` once, just before the next transaction the store sends (after the reads it went by). */
async function beforeNextTransaction<T>(action: () => Promise<unknown>, run: () => Promise<T>): Promise<T> {
  let pending: (() => Promise<unknown>) | undefined = action;
  const name = `beforeNextTransaction${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const act = context.commandName === 'TransactWriteItemsCommand' ? pending : undefined;
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
  // the workspace's tally and took an id there, finds it sealed and is made again on the own one, under a later id.
  const c = await beforeNextTransaction(
    () => moveTally(ws),
    () => createLabel(ws, { title: 'C', color: '000000' }, actor),
  );
  expect(c.id).toBe(b.id + 2);
  expect(await tallyOf(ws)).toEqual({
    ws: { count: { count: 1, sealed: true }, counter: { next_id: b.id + 1, sealed: true } },
    own: { count: { count: 2 }, counter: { next_id: c.id } },
  });
  // Still inside the window by this clock: a sealed tally sends every write to the own one. The limit holds there.
  const more = await concurrentCreates(ws, 6, 'More');
  expect(more).toHaveLength(4);
  expect(new Set([...ids(more), b.id, c.id]).size).toBe(6);
  expect(Math.min(...ids(more))).toBeGreaterThan(c.id);
  expect((await tallyOf(ws)).own.count).toEqual({ count: 6 });
  expect(await partitionWrites(keys.workspace(ws), () => deleteLabel(ws, more[0]!.slug, actor))).toBe(1);
  expect((await tallyOf(ws)).own.count).toEqual({ count: 5 });

  // A create by the workspace's tally between a mover's reads and its transaction: the move, made on what it read, is
  // refused, and made again from what the create left (a move that went by its reads would count one less, and give
  // the create's id again).
  const late = uniqueWorkspace('tally');
  await createLabel(late, { title: 'First', color: '000000' }, actor);
  let between: LabelRecord | undefined;
  await beforeNextTransaction(
    async () => (between = await createLabel(late, { title: 'Between', color: '000000' }, actor)),
    () => moveTally(late),
  );
  const after = await createLabel(late, { title: 'After', color: '000000' }, actor);
  expect(after.id).toBe(between!.id + 1);
  expect(await tallyOf(late)).toEqual({
    ws: { count: { count: 2, sealed: true }, counter: { next_id: between!.id, sealed: true } },
    own: { count: { count: 3 }, counter: { next_id: after.id } },
  });

  // Movers racing creates: whichever wins, ids stay distinct, the count exact, the limit kept.
  await createLabel(raced, { title: 'First', color: '000000' }, actor);
  const [, , racing] = await Promise.all([moveTally(raced), moveTally(raced), concurrentCreates(raced, 6, 'Race')]);
  expect(racing).toHaveLength(5);
  const all = (await scanTable([raced])).filter((i) => i.type === ItemType.label);
  expect(new Set(all.map((l) => l.id)).size).toBe(6);
  expect((await tallyOf(raced)).own.count).toEqual({ count: 6 });
  expect((await checkTable([ws, other, raced, late])).violations).toEqual([]);

  // Past the window: rekey moves the workspace left, and the whole table's run says all are moved.
  clockAt(16);
  const run = await rekeyTable();
  expect(run).toMatchObject({ labelTallies: 1, conflicts: [] });
  expect(run.labelTallyAfter).toBeUndefined();
  expect(await tallyOf(other)).toEqual({
    ws: { count: { count: 1, sealed: true }, counter: { next_id: 1, sealed: true } },
    own: { count: { count: 1 }, counter: { next_id: 1 } },
  });
  expect(await read(keys.labelTallyLayout())).toMatchObject({ type: ItemType.labelTallyLayout, moved_at: expect.any(String) });
  // From then a create writes its label alone in the workspace's partition.
  clockAt(22);
  const next = await partitionWrites(keys.workspace(other), () => createLabel(other, { title: 'Next', color: '000000' }, actor));
  expect(next).toBe(1);
  expect((await tallyOf(other)).own).toEqual({ count: { count: 2 }, counter: { next_id: 2 } });
  expect((await rekeyTable({ workspaces: [other] })).labelTallies).toBe(0);
  expect((await checkTable([ws, other, raced, late])).violations).toEqual([]);
});

test('the checker names a tally kept in two places, and one sealed with none of its own', async () => {
  const [two, lost] = [uniqueWorkspace('tally'), uniqueWorkspace('tally')];
  const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: tableName(), Item }));
  await put({ ...keys.labelIdCounter(two), type: ItemType.labelIdCounter, workspace: two, next_id: 3 });
  await put({ ...keys.labelIdCounterOwn(two), type: ItemType.labelIdCounter, workspace: two, next_id: 3 });
  await put({ ...keys.labelCount(lost), type: ItemType.labelCount, workspace: lost, count: 0, sealed: '2026-01-01T00:00:00.000Z' });
  expect((await checkTable([two, lost])).violations).toEqual([
    `${ItemType.labelIdCounter} of ${two} is kept in 2 places, none sealed`,
    `${ItemType.labelCount} ${keys.labelCount(lost).PK} / LABELCOUNT is sealed, and ${lost} has no tally of its own`,
  ]);
});
