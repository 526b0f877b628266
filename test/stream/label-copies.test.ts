import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { copyItems } from '#checker/copyMoves';
import { rekeyTable } from '#checker/rekey';
import { createLabel, deleteLabel, getLabel, listLabels, updateLabel } from '#domain/labels';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { ItemType, keys, WORKSPACE_COPIES } from '#store/keys';
import { copiesPartition } from '#store/copies';
import { COPIED } from '#store/copyLayouts';
import { labelItem } from '#store/labelItem';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { sentDuring } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * Label copies (store/copies.ts): every write of a label writes its copies in its transaction, so any copy reads
 * as the item does; reads take a copy at random once `npm run rekey` has copied every label. A table of this file's
 * own. The first test starts it as the version before left it (no LAYOUT#COPIES item, labels without copies) and plays
 * the deploy through: its window, the rekey that copies, and a copy's race with a write; the others run on it copied.
 */
usePrivateTable(`label-copies-${Date.now()}`);
afterAll(() => vi.restoreAllMocks());
const actor = { name: 'Copies', username: 'copies' };

/** The label's item and each of its copies, read strongly, as they are kept (keys and type aside). */
async function kept(ws: string, slug: string) {
  const read = async (Key: { PK: string; SK: string }) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
    if (!Item) return undefined;
    const { PK: _pk, SK: _sk, type: _type, ...body } = Item;
    return body;
  };
  const item = await read(keys.label(ws, slug));
  const copies = await Promise.all(Array.from({ length: WORKSPACE_COPIES }, (_, n) => read(keys.labelCopy(ws, slug, n))));
  return { item, copies };
}

test("a table of the version before: reads take the item until npm run rekey, after the deploy's window, has copied every label", async () => {
  // As the version before left it: no LAYOUT items of label copies, or of title guards and label tallies in partitions of their own.
  for (const Key of [keys.labelCopiesLayout(), keys.labelGuardsLayout(), keys.labelTallyLayout()])
    await db.send(new DeleteCommand({ TableName: tableName(), Key }));
  const ws = uniqueWorkspace('copies');
  // A read makes no LAYOUT item (a read-only function may not write): only a label write starts the window.
  const { commands } = await sentDuring(() => Promise.all([listLabels(ws), getLabel(ws, 'none').catch(() => undefined)]));
  expect(commands.filter((c) => !/^(Get|Query|BatchGet)/.test(c))).toEqual([]);
  expect((await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelCopiesLayout() }))).Item).toBeUndefined();
  expect((await rekeyTable({ dryRun: true, workspaces: [ws] })).copyAfter).toBe("15 minutes after this version's first label write");
  expect((await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelCopiesLayout() }))).Item).toBeUndefined();
  // Labels as the version before wrote them: items alone. One it recolored, one it deleted after this version copied it.
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.labelIdCounter(ws), type: ItemType.labelIdCounter, workspace: ws, next_id: 900 },
    }),
  );
  const before = {
    id: 900,
    slug: 'old',
    title: 'Old',
    color: '111111',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  await db.send(new PutCommand({ TableName: tableName(), Item: labelItem(ws, before, titleKey) }));
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.labelTitleGuard(ws, 'old'), type: ItemType.labelTitleGuard, workspace: ws, label_id: 900, label_slug: 'old' },
    }),
  );
  // A label this version made (its copies with it; the first write makes the LAYOUT item, now), then the version before
  // recolored (item alone), and one it deleted (its copies left).
  const recolored = await createLabel(ws, { title: 'Recolored', color: '222222' }, actor);
  const deleted = await createLabel(ws, { title: 'Deleted', color: '333333' }, actor);
  await db.send(
    new PutCommand({ TableName: tableName(), Item: { ...labelItem(ws, { ...recolored, color: 'ABCDEF', rev: 1 }, titleKey) } }),
  );
  for (const key of [keys.label(ws, deleted.slug), keys.labelTitleGuard(ws, titleKey(deleted.title))])
    await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
  // And one it deleted and made again under the same slug (another id): its copies' places are the new label's.
  const reused = await createLabel(ws, { title: 'Reused', color: '444444' }, actor);
  await db.send(new PutCommand({ TableName: tableName(), Item: labelItem(ws, { ...reused, id: 800, color: '555555' }, titleKey) }));
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.labelTitleGuard(ws, titleKey(reused.title)),
        type: ItemType.labelTitleGuard,
        workspace: ws,
        label_id: 800,
        label_slug: reused.slug,
      },
    }),
  );
  await db.send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.labelCount(ws), type: ItemType.labelCount, workspace: ws, count: 3 } }),
  );
  // Not copied: reads take the item (the old label is listed), and the checker says nothing of copies yet.
  expect(await copiesPartition(COPIED.label, ws)).toBe(keys.workspace(ws));
  expect((await listLabels(ws)).map((l) => [l.slug, l.color])).toEqual([
    ['old', '111111'],
    [recolored.slug, 'ABCDEF'],
    [reused.slug, '555555'],
  ]);
  // Within the window rekey copies nothing and says when it will.
  const early = await rekeyTable({ workspaces: [ws] });
  expect(early.copyAfter).toBeDefined();
  expect(early.copies).toBe(4);
  expect((await kept(ws, 'old')).copies).toEqual(Array(WORKSPACE_COPIES).fill(undefined));

  clockAt(16);
  // A copy racing a write: rekey read the recolored label, then it changed again; its transaction fails, named.
  const scanned = await scanTable([ws]);
  await updateLabel(ws, recolored.slug, { color: 'FEDCBA' }, actor);
  const conflicts: string[] = [];
  await copyItems(COPIED.label, scanned, Date.now(), conflicts, false);
  expect(conflicts).toEqual([`label ${ws}/${recolored.slug}: changed while copying; run again`]);
  // The write itself brought its copies up to it; the old label and the deleted one's copies are put right now.
  const run = await rekeyTable();
  expect(run.conflicts).toEqual([]);
  expect(run.copyAfter).toBeUndefined();
  for (const slug of ['old', recolored.slug, reused.slug]) {
    const { item, copies } = await kept(ws, slug);
    for (const copy of copies) expect(copy).toEqual(item);
  }
  expect((await kept(ws, deleted.slug)).copies).toEqual(Array(WORKSPACE_COPIES).fill(undefined));
  expect((await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelCopiesLayout() }))).Item?.copied_at).toEqual(
    expect.any(String),
  );
  // Copied: after a function's relook, reads take a copy; the checker holds every copy to its item.
  clockAt(22);
  expect(await copiesPartition(COPIED.label, ws)).not.toBe(keys.workspace(ws));
  expect((await listLabels(ws)).map((l) => [l.slug, l.color])).toEqual([
    ['old', '111111'],
    [recolored.slug, 'FEDCBA'],
    [reused.slug, '555555'],
  ]);
  expect((await checkTable([ws])).violations).toEqual([]);
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...labelItem(ws, { ...before, color: '999999' }, titleKey) } }));
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...labelItem(ws, deleted, titleKey), ...keys.labelCopy(ws, deleted.slug, 3), type: ItemType.labelCopy },
    }),
  );
  expect((await checkTable([ws])).violations.sort()).toEqual(
    [
      ...Array.from(
        { length: WORKSPACE_COPIES },
        (_, n) => `label ${ws}/old: its copy in ${keys.copyPartition(ws, n)} is not the same as its item`,
      ),
      `label copy ${keys.copyPartition(ws, 3)} / LABEL#${deleted.slug} has no label it copies`,
    ].sort(),
  );
  // A copy left behind its item (as after a rollback: the version before recolored the item alone, moving its revision)
  // does not hold writes up: a rename that lost its condition on a stale copy reads the item next, and puts the copies right.
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...labelItem(ws, { ...before, color: '777777', rev: 5 }, titleKey) } }));
  const healed = await updateLabel(ws, 'old', { title: 'Old again' }, actor);
  expect(healed).toMatchObject({ title: 'Old again', color: '777777', rev: 6 });
  const { item, copies } = await kept(ws, 'old');
  expect(item).toMatchObject({ title: 'Old again', color: '777777', rev: 6 });
  for (const copy of copies) expect(copy).toEqual(item);
});

test('every write of a label writes its copies with it: after a create, a recolor, a rename and a delete, each copy is its item', async () => {
  const ws = uniqueWorkspace('copies');
  const label = await createLabel(ws, { title: 'Copied', color: '112233' }, actor);
  const same = async (slug: string) => {
    const { item, copies } = await kept(ws, slug);
    for (const copy of copies) expect(copy).toEqual(item);
    return item;
  };
  expect((await same(label.slug))?.title).toBe('Copied');
  await updateLabel(ws, label.slug, { color: '445566' }, actor);
  expect((await same(label.slug))?.color).toBe('445566');
  await updateLabel(ws, label.slug, { title: 'Copied 😀 again' }, actor);
  expect(await same(label.slug)).toMatchObject({ title: 'Copied 😀 again', color: '445566', rev: 2 });
  // Read from whichever copy, every read answers the last write (a write and its copies are one transaction).
  for (let i = 0; i < 16; i++) expect((await getLabel(ws, label.slug)).rev).toBe(2);
  expect((await checkTable([ws])).violations).toEqual([]);
  await deleteLabel(ws, label.slug, actor);
  expect(await kept(ws, label.slug)).toEqual({ item: undefined, copies: Array(WORKSPACE_COPIES).fill(undefined) });
});

test('reads take a copy, none of them the workspace partition; writes and their conditions stay on the item', async () => {
  const ws = uniqueWorkspace('copies');
  const label = await createLabel(ws, { title: 'Read', color: '112233' }, actor);
  const partitions = new Set(await Promise.all(Array.from({ length: 64 }, () => copiesPartition(COPIED.label, ws))));
  expect([...partitions].every((pk) => pk.startsWith(`${keys.workspace(ws)}#COPY#`))).toBe(true);
  expect(partitions.size).toBeGreaterThan(1);
  const sent: string[] = [];
  const name = `copyReads${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (!/Transact/.test(context.commandName!)) sent.push(JSON.stringify(args.input));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await Promise.all([listLabels(ws), getLabel(ws, label.slug)]);
  } finally {
    db.middlewareStack.remove(name);
  }
  expect(sent.filter((input) => input.includes(`"${keys.workspace(ws)}"`))).toEqual([]);
  const { parts } = await sentDuring(() => updateLabel(ws, label.slug, { color: '000000' }, actor));
  // A recolor: the same update on the item and each copy, in one transaction (no read before it, nothing to race on).
  expect(parts).toEqual(['Update', ...Array(WORKSPACE_COPIES).fill('Update')]);
});

test('concurrent recolors and renames of one label: no change lost, every copy the item, titles unique', async () => {
  const ws = uniqueWorkspace('copies');
  const label = await createLabel(ws, { title: 'Busy', color: '000000' }, actor);
  const other = await createLabel(ws, { title: 'Taken', color: '000000' }, actor);
  const changes = await Promise.allSettled([
    ...Array.from({ length: 8 }, (_, i) => updateLabel(ws, label.slug, { color: `00000${i + 1}` }, actor)),
    ...Array.from({ length: 6 }, (_, i) => updateLabel(ws, label.slug, { title: `Busy ${i}` }, actor)),
    updateLabel(ws, label.slug, { title: 'TAKEN' }, actor),
    updateLabel(ws, other.slug, { color: 'FFFFFF' }, actor),
  ]);
  const done = changes.filter((c) => c.status === 'fulfilled').length;
  // The rename to another label's title (folded) is refused; every other change lands, each once.
  expect(done).toBe(changes.length - 1);
  const { item, copies } = await kept(ws, label.slug);
  expect(item?.rev).toBe(14);
  for (const copy of copies) expect(copy).toEqual(item);
  expect((await checkTable([ws])).violations).toEqual([]);
});
