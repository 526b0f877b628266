import type { LabelRecord } from '#domain/entities';
import { keys, WORKSPACE_COPIES } from './keys';
import { labelCopiesLayoutItem, labelCopyItems } from './labelCopyLayout';
import { readMoveLayout } from './moveLayouts';
import { tx, type TransactItem } from './transactions';

/**
 * Label copies: every label item (`WS#<ws>`, the partition every read of the workspace reads) has a copy in each of
 * WORKSPACE_COPIES partitions of its own (`WS#<ws>#COPY#<n>`), written in the same transaction as the item, so a read
 * of any copy is as strong as a read of the item: a client reads its own write from whichever copy it is given. Reads
 * (a label, labels by slug, the list) take one copy at random; writes and their conditions stay on the item.
 *
 * A function of the version before writes the item alone, so copies can be stale until `npm run rekey` has copied every
 * label, once no such function can run (SPREAD_AFTER_MS after this version first ran on the table: the service's LAYOUT
 * item, `WS#` / `LAYOUT#COPIES`), and said so on the item (`copied_at`); until then reads take the item. A table the
 * local tools make new has the item as of long ago, copied.
 */

/** The layout; a writer (`making`) that finds none makes it, as of now (a read-only function may not write it). */
const layoutOf = (making: boolean) =>
  readMoveLayout(keys.labelCopiesLayout(), (since) => labelCopiesLayoutItem(since), 'copied_at', making);

/**
 * The partition a read of the workspace's labels takes: a copy at random once every label has them, else the item's.
 * `fromItem`: the item's whatever the layout (a write that lost its condition reads again there: a copy left stale by
 * the version before, after a rollback, is put right by the write that follows).
 */
export async function labelsPartition(ws: string, fromItem = false): Promise<string> {
  if (fromItem || !(await layoutOf(false)).done) return keys.workspace(ws);
  return keys.copyPartition(ws, Math.floor(Math.random() * WORKSPACE_COPIES));
}

/** The parts (`copy:<n>`) that write the label's copies as `l` (its item after the write they go with). */
export async function copyPuts(ws: string, l: LabelRecord): Promise<[string, TransactItem][]> {
  await layoutOf(true);
  return labelCopyItems(ws, l).map((item, n) => [`copy:${n}`, tx.put(item)]);
}

/** The parts (`copy:<n>`) that delete the label's copies, with its item. */
export const copyDeletes = (ws: string, slug: string): [string, TransactItem][] =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => [`copy:${n}`, tx.delete(keys.labelCopy(ws, slug, n))]);

/** Whether every label has its copies (reads take them; a change may be made to the item and each copy alike). */
export const labelsCopied = async (): Promise<boolean> => (await layoutOf(false)).done;

/** The parts (`copy:<n>`) that make the same update on each of the label's copies as on its item (copies are the item's). */
export const copyUpdates = (
  ws: string,
  slug: string,
  expression: string,
  change: { names: Record<string, string>; values: Record<string, unknown> },
): [string, TransactItem][] =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => [`copy:${n}`, tx.update(keys.labelCopy(ws, slug, n), expression, change)]);
