import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { copyItems } from '#checker/copyMoves';
import { checkTable, scanTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import {
  createProject,
  deleteProject,
  findProjectsByName,
  getProject,
  getProjectWithStats,
  listProjects,
  storedProjectItem,
  updateProject,
} from '#domain/projects';
import type { ProjectRecord } from '#domain/entities';
import { changedSinceRead, NotFound, PreconditionFailed } from '#domain/errors';
import { createLabel, getLabel, updateLabel } from '#domain/labels';
import { db } from '#store/client';
import { copiesPartition } from '#store/copies';
import { COPIED } from '#store/copyLayouts';
import { ItemType, keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';
import { clockAt } from '#support/clock';
import { sentDuring } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * Project copies (store/copies.ts): every write of a project writes its copies in its transaction, so any copy reads as
 * the item does; reads of a project take a copy at random once `npm run rekey` has copied every project, and lists stay
 * on the item and its indexes. A table of this file's own. The first test starts it as the version before left it (no
 * LAYOUT#PROJECTCOPIES item, projects without copies) and plays the deploy through; the others run on it copied.
 */
usePrivateTable(`project-copies-${Date.now()}`);
afterAll(() => vi.restoreAllMocks());
const actor = { name: 'Copies', username: 'copies' };
const INDEX_KEYS = ['GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'];

/** The project's item and each of its copies, read strongly, as they are kept (keys, index keys and type aside). */
async function kept(ws: string, slug: string) {
  const read = async (Key: { PK: string; SK: string }) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
    if (!Item) return undefined;
    const { PK: _pk, SK: _sk, type: _type, ...body } = Item;
    return Object.fromEntries(Object.entries(body).filter(([k]) => !INDEX_KEYS.includes(k)));
  };
  const item = await read(keys.project(ws, slug));
  const copies = await Promise.all(Array.from({ length: WORKSPACE_COPIES }, (_, n) => read(keys.projectCopy(ws, slug, n))));
  return { item, copies };
}

/** Every copy of the project is its item (and there is an item); the item, as kept. */
async function same(ws: string, slug: string) {
  const { item, copies } = await kept(ws, slug);
  expect(item).toBeDefined();
  for (const copy of copies) expect(copy).toEqual(item);
  return item!;
}

/** A project item as the version before writes it: the item alone. */
const putItemAlone = (p: ProjectRecord) => db.send(new PutCommand({ TableName: tableName(), Item: storedProjectItem(p) }));

test("a table of the version before: project reads take the item until npm run rekey, after the deploy's window, has copied every project", async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.projectCopiesLayout() }));
  const ws = uniqueWorkspace('pcopies');
  // A read makes no LAYOUT item (a read-only function may not write): only a project write starts the window.
  const { commands } = await sentDuring(() =>
    Promise.all([listProjects(ws, { limit: 50 }), getProject(ws, 'none').catch(() => undefined)]),
  );
  expect(commands.filter((c) => !/^(Get|Query|BatchGet)/.test(c))).toEqual([]);
  expect((await db.send(new GetCommand({ TableName: tableName(), Key: keys.projectCopiesLayout() }))).Item).toBeUndefined();
  expect((await rekeyTable({ dryRun: true, workspaces: [ws] })).projectCopyAfter).toBe(
    "15 minutes after this version's first project write",
  );

  // A project as the version before wrote it (no copies); one this version made (its copies with it: the first write
  // makes the LAYOUT item, now) that the version before then changed (the item alone); one it made that the version
  // before deleted (its copies left).
  const made = await createProject(ws, { name: 'Made here', owner: actor });
  const old: ProjectRecord = { ...made, id: 'old-project-id', slug: 'old', name: 'Old', rev: 3 };
  await putItemAlone(old);
  const changed = await createProject(ws, { name: 'Changed there', owner: actor });
  await putItemAlone({ ...changed, description: 'by the version before', rev: 1 });
  const deleted = await createProject(ws, { name: 'Deleted there', owner: actor });
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.project(ws, deleted.slug) }));

  // Not copied: reads take the item.
  expect(await copiesPartition(COPIED.project, ws)).toBe(keys.workspace(ws));
  expect((await getProject(ws, changed.slug)).description).toBe('by the version before');
  expect((await getProject(ws, 'old')).name).toBe('Old');
  await expect(getProject(ws, deleted.slug)).rejects.toBeInstanceOf(NotFound);
  // An update on a table not copied reads the item and puts the copies as the project then is.
  await updateProject(ws, made.slug, { description: 'updated here' }, actor);
  expect(await same(ws, made.slug)).toMatchObject({ description: 'updated here', rev: 1 });

  // Within the window rekey copies nothing and says when it will.
  const early = await rekeyTable({ workspaces: [ws] });
  expect(early.projectCopyAfter).toEqual(expect.any(String));
  expect(early.projectCopies).toBe(3);
  expect((await kept(ws, 'old')).copies).toEqual(Array(WORKSPACE_COPIES).fill(undefined));

  clockAt(16);
  // A copy racing a write: rekey read the changed project, then it changed again; its transaction fails, named.
  const scanned = await scanTable([ws]);
  await updateProject(ws, changed.slug, { visibility: 'private' }, actor);
  const conflicts: string[] = [];
  await copyItems(COPIED.project, scanned, Date.now(), conflicts, false);
  expect(conflicts).toEqual([`project ${ws}/${changed.slug}: changed while copying; run again`]);
  // The write itself brought its copies up to it; the old project's are put, and the deleted one's taken, now.
  const run = await rekeyTable();
  expect(run.conflicts).toEqual([]);
  expect(run.projectCopyAfter).toBeUndefined();
  for (const slug of ['old', made.slug, changed.slug]) await same(ws, slug);
  expect(await same(ws, changed.slug)).toMatchObject({ description: 'by the version before', visibility: 'private', rev: 2 });
  expect((await kept(ws, deleted.slug)).copies).toEqual(Array(WORKSPACE_COPIES).fill(undefined));
  expect((await db.send(new GetCommand({ TableName: tableName(), Key: keys.projectCopiesLayout() }))).Item?.copied_at).toEqual(
    expect.any(String),
  );

  // Copied: after a function's relook, reads take a copy; the checker holds every copy to its item.
  clockAt(22);
  expect(await copiesPartition(COPIED.project, ws)).not.toBe(keys.workspace(ws));
  expect((await getProject(ws, 'old')).rev).toBe(3);
  expect((await checkTable([ws])).violations).toEqual([]);
  await putItemAlone({ ...old, description: 'item alone' });
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...storedProjectItem(deleted), ...keys.projectCopy(ws, deleted.slug, 3), type: ItemType.projectCopy },
    }),
  );
  expect((await checkTable([ws])).violations.sort()).toEqual(
    [
      ...Array.from(
        { length: WORKSPACE_COPIES },
        (_, n) => `project ${ws}/old: its copy in ${keys.copyPartition(ws, n)} is not the same as its item`,
      ),
      `project copy ${keys.copyPartition(ws, 3)} / PROJECT#${deleted.slug} has no project it copies`,
    ].sort(),
  );
});

test('every write of a project writes its copies with it; reads of one take a copy, lists stay on the item and its indexes', async () => {
  const ws = uniqueWorkspace('pcopies');
  const project = await createProject(ws, { name: 'Copied', description: 'first', owner: actor });
  expect(await same(ws, project.slug)).toMatchObject({ name: 'Copied', description: 'first' });
  // A copy is in no index: the lists find the project once.
  const copy = (await db.send(new GetCommand({ TableName: tableName(), Key: keys.projectCopy(ws, project.slug, 5) }))).Item!;
  expect(Object.keys(copy).filter((k) => INDEX_KEYS.includes(k))).toEqual([]);

  const { parts } = await sentDuring(() => updateProject(ws, project.slug, { name: 'Copied 😀 again', status: 'archived' }, actor));
  // The same update on the item and each copy, in one transaction (no read before it, nothing to race on).
  expect(parts).toEqual(['Update', ...Array(WORKSPACE_COPIES).fill('Update')]);
  expect(await same(ws, project.slug)).toMatchObject({ name: 'Copied 😀 again', status: 'archived', rev: 1 });
  // Read from whichever copy, every read answers the last write.
  for (let i = 0; i < 16; i++) expect((await getProject(ws, project.slug)).rev).toBe(1);
  expect((await listProjects(ws, { status: 'archived', limit: 50 })).items.map((p) => p.slug)).toEqual([project.slug]);
  expect((await findProjectsByName(ws, 'copied 😀', { limit: 50 })).items.map((p) => p.name)).toEqual(['Copied 😀 again']);
  expect((await listProjects(ws, { limit: 50 })).items.map((p) => p.slug)).toEqual([project.slug]);

  // An update that changes nothing writes nothing; an If-Match at a revision gone is refused and writes nothing.
  expect(await updateProject(ws, project.slug, { status: 'archived' }, actor)).toMatchObject({ rev: 1 });
  expect(await same(ws, project.slug)).toMatchObject({ status: 'archived', rev: 1 });
  // The store's own condition: another update lands between the precondition's read and the write.
  await expect(
    updateProject(ws, project.slug, { description: 'late' }, actor, async () => {
      await updateProject(ws, project.slug, { description: 'between' }, actor);
    }),
  ).rejects.toBeInstanceOf(PreconditionFailed);
  expect(await same(ws, project.slug)).toMatchObject({ description: 'between', rev: 2 });

  // Reads of a project, with its stats or not, send nothing to the workspace's partition.
  const { inputs } = await sentDuring(() => Promise.all([getProject(ws, project.slug), getProjectWithStats(ws, project.slug)]));
  const sent = inputs.map((i) => JSON.stringify(i.input));
  expect(sent).toHaveLength(3);
  expect(sent.filter((input) => input.includes(`"${keys.workspace(ws)}"`))).toEqual([]);
  await deleteProject(ws, project.slug, actor);
  expect(await kept(ws, project.slug)).toEqual({ item: undefined, copies: Array(WORKSPACE_COPIES).fill(undefined) });
  expect((await checkTable([ws])).violations).toEqual([]);
});

test('concurrent updates of one project, with and without If-Match: no change lost, every copy the item', async () => {
  const ws = uniqueWorkspace('pcopies');
  const project = await createProject(ws, { name: 'Busy', owner: actor });
  const changes = await Promise.allSettled([
    ...Array.from({ length: 6 }, (_, i) => updateProject(ws, project.slug, { description: `d${i}` }, actor)),
    ...Array.from({ length: 4 }, (_, i) => updateProject(ws, project.slug, { name: `Busy ${i}` }, actor)),
    updateProject(ws, project.slug, { visibility: 'private' }, actor),
    updateProject(ws, project.slug, { settings: { task_prefix: 'BZ' } }, actor),
  ]);
  expect(changes.filter((c) => c.status === 'rejected')).toEqual([]);
  const item = await same(ws, project.slug);
  expect(item).toMatchObject({ visibility: 'private', settings: { task_prefix: 'BZ' }, rev: 12 });
  // If-Match, concurrently at one revision: one lands, the others are refused, none half-written.
  const at = await getProject(ws, project.slug);
  const held = await Promise.allSettled(
    Array.from({ length: 4 }, (_, i) =>
      updateProject(ws, project.slug, { description: `held ${i}` }, actor, async (p) => {
        if (p.rev !== at.rev) throw changedSinceRead();
      }),
    ),
  );
  expect(held.filter((h) => h.status === 'fulfilled')).toHaveLength(1);
  for (const h of held) if (h.status === 'rejected') expect(h.reason).toBeInstanceOf(PreconditionFailed);
  expect(await same(ws, project.slug)).toMatchObject({ rev: 13 });
  expect((await checkTable([ws])).violations).toEqual([]);
});

test('a copy missing (the invariant broken) holds no write up: the update reads the item and puts every copy', async () => {
  const ws = uniqueWorkspace('pcopies');
  const project = await createProject(ws, { name: 'Holed', owner: actor });
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.projectCopy(ws, project.slug, 3) }));
  expect(await updateProject(ws, project.slug, { description: 'mended' }, actor)).toMatchObject({ description: 'mended', rev: 1 });
  expect(await same(ws, project.slug)).toMatchObject({ description: 'mended', rev: 1 });
  // A create whose copies were lost after its item was written (putNewProject writes the item first): reads take the item.
  const bare = await createProject(ws, { name: 'Bare', owner: actor });
  for (let n = 0; n < WORKSPACE_COPIES; n++)
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.projectCopy(ws, bare.slug, n) }));
  for (let i = 0; i < 8; i++) expect((await getProject(ws, bare.slug)).id).toBe(bare.id);
  await expect(getProject(ws, 'never-made')).rejects.toBeInstanceOf(NotFound);
  // A label's recolor likewise (store/labelRecolors.ts), reading the item, not the copy that is missing.
  const label = await createLabel(ws, { title: 'Holed', color: '000000' }, actor);
  for (let i = 1; i <= 8; i++) {
    const n = i % WORKSPACE_COPIES;
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelCopy(ws, label.slug, n) }));
    // Every read that takes a copy takes the one missing.
    const random = vi.spyOn(Math, 'random').mockReturnValue((n + 0.5) / WORKSPACE_COPIES);
    try {
      expect(await updateLabel(ws, label.slug, { color: `00000${i}` }, actor)).toMatchObject({ color: `00000${i}` });
    } finally {
      random.mockRestore();
    }
  }
  for (let i = 0; i < 8; i++) expect((await getLabel(ws, label.slug)).color).toBe('000008');
  // A project with no copy at all is one whose copies follow (putNewProject): nothing to name; rekey puts them.
  expect((await checkTable([ws])).violations).toEqual([]);
  expect(await rekeyTable({ workspaces: [ws] })).toMatchObject({ projectCopies: 1, conflicts: [] });
  expect((await checkTable([ws])).violations).toEqual([]);
});

test('a create whose copies cannot be written stands, read from its item, until an update or rekey puts them', async () => {
  const ws = uniqueWorkspace('pcopies');
  // The copies' transactions fail as a throttled table fails them (`failing` of them), or let a write in before them, or
  // are written and their answer lost (`losing` of them).
  let failing = 0;
  let losing = 0;
  let before: (() => Promise<unknown>) | undefined;
  const name = `pendingCopies${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && failing > 0) {
        failing--;
        throw Object.assign(new Error('injected throttling'), { name: 'ThrottlingException', $fault: 'client', $metadata: {} });
      }
      const write = context.commandName === 'TransactWriteItemsCommand' ? before : undefined;
      if (write) {
        before = undefined;
        await write();
      }
      const out = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand' && losing > 0) {
        losing--;
        throw Object.assign(new Error('injected lost answer'), { name: 'TimeoutError', $metadata: {} });
      }
      return out;
    },
    { step: 'initialize', name },
  );
  try {
    failing = 3;
    const pending = await createProject(ws, { name: 'Pending', owner: actor });
    expect(failing).toBe(0);
    const { item, copies } = await kept(ws, pending.slug);
    expect(item).toMatchObject({ id: pending.id });
    expect(copies).toEqual(Array(WORKSPACE_COPIES).fill(undefined));
    for (let i = 0; i < 8; i++) expect((await getProject(ws, pending.slug)).id).toBe(pending.id);
    expect((await checkTable([ws])).violations).toEqual([]);
    // Its next update puts them, and takes the mark off.
    expect(await updateProject(ws, pending.slug, { description: 'copied' }, actor)).toMatchObject({ rev: 1 });
    expect(await same(ws, pending.slug)).toMatchObject({ description: 'copied', rev: 1 });

    // Or rekey does.
    failing = 3;
    const left = await createProject(ws, { name: 'Left', owner: actor });
    expect(await rekeyTable({ workspaces: [ws] })).toMatchObject({ projectCopies: 1, conflicts: [] });
    expect(await same(ws, left.slug)).toMatchObject({ id: left.id, description: '' });

    // An update landing between a create's item and its copies is not undone by them: theirs are put from its item.
    let between: unknown;
    before = async () => (between = await updateProject(ws, 'raced', { description: 'between' }, actor));
    const raced = await createProject(ws, { name: 'Raced', owner: actor });
    expect(raced.slug).toBe('raced');
    expect(between).toMatchObject({ description: 'between', rev: 1 });
    expect(await same(ws, raced.slug)).toMatchObject({ description: 'between', rev: 1 });
    for (let i = 0; i < 8; i++) expect((await getProject(ws, raced.slug)).description).toBe('between');
    // Written, its answer lost: the next try finds the copies it made and stops there.
    losing = 1;
    const lost = await createProject(ws, { name: 'Lost', owner: actor });
    expect(losing).toBe(0);
    expect(await same(ws, lost.slug)).toMatchObject({ id: lost.id, description: '' });
    // Copies of another project of the slug (one a version without copies deleted, during a rollback) are written over.
    const gone = { ...(await createProject(ws, { name: 'Orphan', owner: actor })) };
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.project(ws, gone.slug) }));
    const orphan = await createProject(ws, { name: 'Orphan', owner: actor });
    expect(orphan.slug).toBe(gone.slug);
    expect(await same(ws, orphan.slug)).toMatchObject({ id: orphan.id });
    // A delete landing there: its mark refuses the copies, so no read finds the project again.
    before = async () => deleteProject(ws, 'doomed', actor);
    const doomed = await createProject(ws, { name: 'Doomed', owner: actor });
    expect(await kept(ws, doomed.slug)).toEqual({ item: undefined, copies: Array(WORKSPACE_COPIES).fill(undefined) });
    await expect(getProject(ws, doomed.slug)).rejects.toBeInstanceOf(NotFound);
    // Its copies are all there or none: one alone is named, with the others.
    failing = 3;
    const some = await createProject(ws, { name: 'Some', owner: actor });
    const copy = { ...storedProjectItem(some), ...keys.projectCopy(ws, some.slug, 2), type: ItemType.projectCopy };
    for (const k of INDEX_KEYS) delete copy[k as keyof typeof copy];
    await db.send(new PutCommand({ TableName: tableName(), Item: copy }));
    const named = [0, 1, 3, 4, 5, 6, 7].map((n) => `project ${ws}/${some.slug} has no copy in ${keys.copyPartition(ws, n)}`);
    expect((await checkTable([ws])).violations).toEqual(named);
  } finally {
    db.middlewareStack.remove(name);
  }
});
