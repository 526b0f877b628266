import type { LabelRecord } from '#domain/entities';
import { ItemType, keys, WORKSPACE_COPIES } from './keys';

/**
 * The shape of a label's copies (labelCopies.ts), pure, as the local tools and the checker make and read them: the
 * service's LAYOUT item of the copies, and a label item's copies.
 */

/** Since when this version writes label copies, and, once `npm run rekey` has copied every label, when (`copied_at`). */
export const labelCopiesLayoutItem = (since: string, copiedAt?: string) => ({
  ...keys.labelCopiesLayout(),
  type: ItemType.labelCopiesLayout,
  sharded_since: since,
  ...(copiedAt === undefined ? {} : { copied_at: copiedAt }),
});

/**
 * The label as its item keeps it, its keys aside: its fields, and its title's key as stored (`titleNorm`, absent on an
 * item from before titles had keys).
 */
export function labelBody(ws: string, l: LabelRecord): Record<string, unknown> {
  const { titleNorm, ...fields } = l;
  return { type: ItemType.label, workspace: ws, ...(titleNorm === undefined ? {} : { title_norm: titleNorm }), ...fields };
}

/** A label item's copies, one in each copy partition of its workspace: the item as kept (its keys aside), typed as a copy. */
export const copiesOfItem = (item: Record<string, unknown>): Record<string, unknown>[] =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => ({
    ...item,
    ...keys.labelCopy(String(item.workspace), String(item.slug), n),
    type: ItemType.labelCopy,
  }));

/** The label's copies as a write of `l` leaves them. */
export const labelCopyItems = (ws: string, l: LabelRecord): Record<string, unknown>[] => copiesOfItem(labelBody(ws, l));
