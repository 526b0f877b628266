import { COPIED, copiesLayoutItem, copiesOfItem, type CopiedKind } from './copyLayouts';
import { keys, WORKSPACE_COPIES } from './keys';
import { readMoveLayout } from './moveLayouts';
import { tx, type TransactItem } from './transactions';

/**
 * Copies: every label and project item (`WS#<ws>`, the partition every read of the workspace reads) has a copy in each
 * of WORKSPACE_COPIES partitions of its own (`WS#<ws>#COPY#<n>`), written in the same transaction as the item, so a
 * read of any copy is as strong as a read of the item: a client reads its own write from whichever copy it is given.
 * Reads of one (a label, labels by slug, the labels' list, a project) take one copy at random; writes and their
 * conditions stay on the item, and so do the lists of projects (their indexes and cursors are the item's). A copy
 * keeps no index key: it is in no index.
 *
 * A function of the version before writes the item alone, so copies can be stale until `npm run rekey` has copied every
 * item of the kind, once no such function can run (SPREAD_AFTER_MS after this version first wrote one on the table:
 * the kind's LAYOUT item, `WS#` / `LAYOUT#COPIES` for labels, `WS#` / `LAYOUT#PROJECTCOPIES` for projects), and said so
 * on the item (`copied_at`); until then reads take the item. A table the local tools make new has both as of long ago,
 * copied.
 */

/** The layout; a writer (`making`) that finds none makes it, as of now (a read-only function may not write it). */
const layoutOf = (kind: CopiedKind, making: boolean) =>
  readMoveLayout(kind.layout(), (since) => copiesLayoutItem(kind, since), 'copied_at', making);

/**
 * The partition a read of the workspace's items of `kind` takes: a copy at random once every one has them, else the
 * item's. `fromItem`: the item's whatever the layout (a write that lost its condition reads again there: a copy left
 * stale by the version before, after a rollback, is put right by the write that follows).
 */
export async function copiesPartition(kind: CopiedKind, ws: string, fromItem = false): Promise<string> {
  if (fromItem || !(await layoutOf(kind, false)).done) return keys.workspace(ws);
  return keys.copyPartition(ws, Math.floor(Math.random() * WORKSPACE_COPIES));
}

/** Whether every item of `kind` has its copies (reads take them; a change may be made to the item and each copy alike). */
export const allCopied = async (kind: CopiedKind): Promise<boolean> => (await layoutOf(kind, false)).done;

/** The parts (`copy:<n>`) that write an item's copies as `item` (the item after the write they go with), each only where `only` holds. */
export async function copyPuts(
  item: Record<string, unknown>,
  only?: { condition: string; values: Record<string, unknown> },
): Promise<[string, TransactItem][]> {
  await layoutOf(item.type === COPIED.project.type ? COPIED.project : COPIED.label, true);
  return copiesOfItem(item).map((copy, n) => [`copy:${n}`, tx.put(copy, only ?? {})]);
}

/** The parts (`copy:<n>`) that delete an item's copies, with its item. */
export const copyDeletes = (kind: CopiedKind, ws: string, slug: string): [string, TransactItem][] =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => [`copy:${n}`, tx.delete(kind.copy(ws, slug, n))]);

/**
 * The parts (`copy:<n>`) that make the same update on each of an item's copies as on the item (copies are the item's),
 * each only where the copy is (a copy missing fails the part, never makes half an item).
 */
export const copyUpdates = (
  kind: CopiedKind,
  ws: string,
  slug: string,
  expression: string,
  change: { names: Record<string, string>; values: Record<string, unknown> },
): [string, TransactItem][] =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => [
    `copy:${n}`,
    tx.update(kind.copy(ws, slug, n), expression, { condition: 'attribute_exists(PK)', ...change }),
  ]);
