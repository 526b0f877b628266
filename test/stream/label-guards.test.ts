import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { moveGuards } from '#checker/guardMoves';
import { rekeyTable } from '#checker/rekey';
import { createLabel, deleteLabel, updateLabel } from '#domain/labels';
import { Conflict } from '#domain/errors';
import type { LabelRecord } from '#domain/entities';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { ItemType, keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { partitionWrites, sentDuring } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * Title guards in partitions of their own (store/labelGuardLayout.ts), played through a deploy on a table of this file's
 * own, started as the version before left it (no LAYOUT#LABELTITLES item: guards in the workspace's partition): while
 * both versions may run, the workspace's guards hold and the own ones follow; `npm run rekey`, after the deploy's window,
 * gives every label its own and says so; then the own ones hold, the workspace's follow for a function's relook, and
 * then are left to rekey to remove. Titles stay unique at every stage.
 */
usePrivateTable(`label-guards-${Date.now()}`);
afterAll(() => vi.restoreAllMocks());
const actor = { name: 'Guards', username: 'guards' };

/** The label of `title`'s guards, in the workspace's partition and in its own: the id each names, or undefined. */
async function guardsOf(ws: string, title: string) {
  const read = async (Key: { PK: string; SK: string }) =>
    (await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item?.label_id as number | undefined;
  return { ws: await read(keys.labelTitleGuard(ws, titleKey(title))), own: await read(keys.labelTitleGuardOwn(ws, titleKey(title))) };
}

/** As the version before wrote a label: what this version writes, but no guard of its own. */
async function madeBefore(ws: string, title: string): Promise<LabelRecord> {
  const label = await createLabel(ws, { title, color: '101010' }, actor);
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelTitleGuardOwn(ws, titleKey(title)) }));
  return label;
}

/**
 * As the version before deleted a label: its item, copies and the workspace's guard (an own guard it knows nothing of
 * stays); and the count, where this table keeps it (its label tallies moved from the start: store/labelTally.ts).
 */
async function deletedBefore(ws: string, label: LabelRecord): Promise<void> {
  const gone = [
    keys.label(ws, label.slug),
    keys.labelTitleGuard(ws, titleKey(label.title)),
    ...Array.from({ length: WORKSPACE_COPIES }, (_, n) => keys.labelCopy(ws, label.slug, n)),
  ];
  for (const Key of gone) await db.send(new DeleteCommand({ TableName: tableName(), Key }));
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.labelCountOwn(ws),
      UpdateExpression: 'ADD #count :minus',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}

const workspaceWrites = (ws: string, run: () => Promise<unknown>) => partitionWrites(keys.workspace(ws), run);

const concurrentCreates = async (ws: string, title: string) => {
  const made = await Promise.allSettled(Array.from({ length: 5 }, () => createLabel(ws, { title, color: '202020' }, actor)));
  for (const m of made) if (m.status === 'rejected') expect(m.reason).toBeInstanceOf(Conflict);
  return made.filter((m) => m.status === 'fulfilled').length;
};

test('a deploy played through: titles unique while both versions run, rekey moves every guard, the workspace keeps none', async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelGuardsLayout() }));
  const ws = uniqueWorkspace('guards');
  // Rekey before any label write (a dry run, and a read) makes no LAYOUT item, and says it waits for one.
  const { commands } = await sentDuring(() => rekeyTable({ dryRun: true, workspaces: [ws] }));
  expect(commands.filter((c) => !/^(Get|Query|BatchGet|Scan)/.test(c))).toEqual([]);
  expect((await rekeyTable({ dryRun: true, workspaces: [ws] })).titleGuardAfter).toBe("15 minutes after this version's first label write");

  // While the version before may run: both guards written, the workspace's hold.
  const alpha = await createLabel(ws, { title: 'Alpha', color: '000000' }, actor);
  expect(await guardsOf(ws, 'Alpha')).toEqual({ ws: alpha.id, own: alpha.id });
  const beta = await madeBefore(ws, 'Beta');
  const delta = await createLabel(ws, { title: 'Delta', color: '000000' }, actor);
  await deletedBefore(ws, delta);
  await expect(createLabel(ws, { title: 'BETA', color: '000000' }, actor)).rejects.toBeInstanceOf(Conflict);
  expect(await concurrentCreates(ws, 'Race one')).toBe(1);
  // A title whose own guard the version before left behind is free: the create writes over it.
  const delta2 = await createLabel(ws, { title: 'Delta', color: '000000' }, actor);
  expect(await guardsOf(ws, 'Delta')).toEqual({ ws: delta2.id, own: delta2.id });
  const gamma = await createLabel(ws, { title: 'Gamma', color: '000000' }, actor);
  await deletedBefore(ws, gamma);
  // The checker holds the workspace's guards: none missing, none stale; the own ones, following, are not looked at.
  expect((await checkTable([ws])).violations).toEqual([]);

  // Inside the window rekey moves nothing and says when it will: Beta's guard to make, Gamma's to remove.
  const early = await rekeyTable({ workspaces: [ws] });
  expect(early).toMatchObject({ titleGuards: 2, conflicts: [] });
  expect(early.titleGuardAfter).toMatch(/^\d{4}-/);
  expect(await guardsOf(ws, 'Beta')).toEqual({ ws: beta.id, own: undefined });

  clockAt(16);
  // A label renamed between rekey's scan and its move: named, nothing written over.
  const scanned = await scanTable([ws]);
  const renamed = await updateLabel(ws, beta.slug, { title: 'Beta two' }, actor);
  const conflicts: string[] = [];
  await moveGuards(scanned, Date.now(), conflicts, false);
  expect(conflicts).toEqual([`label ${ws}/${beta.slug}: changed while its title guard was moved; run again`]);
  expect(await guardsOf(ws, 'Beta')).toEqual({ ws: undefined, own: undefined });
  expect(await guardsOf(ws, 'Beta two')).toEqual({ ws: renamed.id, own: renamed.id });
  await madeBefore(ws, 'Epsilon');
  // That move removed Gamma's stale guard. The whole table: Epsilon gets its own guard, and the layout says all have.
  const run = await rekeyTable();
  expect(run.conflicts).toEqual([]);
  expect(run.titleGuards).toBe(1);
  expect(await guardsOf(ws, 'Gamma')).toEqual({ ws: undefined, own: undefined });
  const layout = (await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelGuardsLayout() }))).Item;
  expect(layout).toMatchObject({ type: ItemType.labelGuardsLayout, moved_at: expect.any(String) });
  expect((await checkTable([ws])).violations).toEqual([]);

  // A function's relook after (its layout read at 16 is 5.5 minutes old): the own guards hold, the workspace's follow
  // them until every function has looked again (5 minutes and a clock's skew after the move).
  clockAt(21.5);
  const zeta = await createLabel(ws, { title: 'Zeta', color: '000000' }, actor);
  expect(await guardsOf(ws, 'Zeta')).toEqual({ ws: zeta.id, own: zeta.id });
  await expect(createLabel(ws, { title: 'zeta', color: '000000' }, actor)).rejects.toBeInstanceOf(Conflict);
  // The own guard is the one that holds: a workspace's guard of a title no label has (the version before's, left by a
  // delete) is written over, not obeyed.
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.labelTitleGuard(ws, titleKey('Left')),
        type: ItemType.labelTitleGuard,
        workspace: ws,
        label_id: 9999,
        label_slug: 'left',
      },
    }),
  );
  const left = await createLabel(ws, { title: 'Left', color: '000000' }, actor);
  expect(await guardsOf(ws, 'Left')).toEqual({ ws: left.id, own: left.id });
  await deleteLabel(ws, alpha.slug, actor);
  expect(await guardsOf(ws, 'Alpha')).toEqual({ ws: undefined, own: undefined });
  expect(await concurrentCreates(ws, 'Race two')).toBe(1);
  const waiting = await rekeyTable({ workspaces: [ws] });
  expect(waiting.titleGuardAfter).toMatch(/^\d{4}-/);
  expect(waiting.titleGuards).toBeGreaterThan(0);

  // Every function has seen it: own guards alone; rekey removes the workspace's, and titles are as unique.
  clockAt(24);
  const eta = await createLabel(ws, { title: 'Eta', color: '000000' }, actor);
  expect(await guardsOf(ws, 'Eta')).toEqual({ ws: undefined, own: eta.id });
  // A rename writes the label there, nothing else (its guards are their own).
  expect(await workspaceWrites(ws, () => updateLabel(ws, eta.slug, { title: 'Eta two' }, actor))).toBe(1);
  expect(await concurrentCreates(ws, 'Race three')).toBe(1);
  const last = await rekeyTable({ workspaces: [ws] });
  expect(last).toMatchObject({ conflicts: [] });
  expect(last.titleGuardAfter).toBeUndefined();
  expect(last.titleGuards).toBeGreaterThan(0);
  expect((await scanTable([ws])).filter((i) => i.type === ItemType.labelTitleGuard)).toEqual([]);
  await expect(createLabel(ws, { title: 'eta TWO', color: '000000' }, actor)).rejects.toBeInstanceOf(Conflict);
  expect((await checkTable([ws])).violations).toEqual([]);
});

// After the deploy above (its clock left past the relook): guards moved, own ones alone written, as on a table the local
// tools make.
test('on a table whose guards are moved, a label write sends to the workspace partition its label alone', async () => {
  const ws = uniqueWorkspace('guards');
  // The create: the label; the guard is its own, as are the count and the id counter (store/labelTally.ts). The
  // workspace's first is tried once: new to the instance, its count is read first, and started (store/workspaceCounts.ts).
  expect(await workspaceWrites(ws, () => createLabel(ws, { title: 'First', color: '000000' }, actor))).toBe(1);
  let label: LabelRecord | undefined;
  expect(await workspaceWrites(ws, async () => (label = await createLabel(ws, { title: 'Quiet', color: '000000' }, actor)))).toBe(1);
  expect(await guardsOf(ws, 'Quiet')).toEqual({ ws: undefined, own: label!.id });
  expect(await workspaceWrites(ws, () => updateLabel(ws, label!.slug, { title: 'Louder' }, actor))).toBe(1);
  expect(await guardsOf(ws, 'Louder')).toEqual({ ws: undefined, own: label!.id });
  expect(await guardsOf(ws, 'Quiet')).toEqual({ ws: undefined, own: undefined });
  expect(await workspaceWrites(ws, () => deleteLabel(ws, label!.slug, actor))).toBe(1);
  expect(await guardsOf(ws, 'Louder')).toEqual({ ws: undefined, own: undefined });
  expect((await checkTable([ws])).violations).toEqual([]);
});
