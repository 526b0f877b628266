import type { LabelRecord } from '#domain/entities';
import { copiesOfItem } from './copyLayouts';
import { ItemType } from './keys';

/** The shape of a label's item and copies (copies.ts), pure, as the local tools and the checker make them. */

/**
 * The label as its item keeps it, its keys aside: its fields, and its title's key as stored (`titleNorm`, absent on an
 * item from before titles had keys).
 */
export function labelBody(ws: string, l: LabelRecord): Record<string, unknown> {
  const { titleNorm, ...fields } = l;
  return { type: ItemType.label, workspace: ws, ...(titleNorm === undefined ? {} : { title_norm: titleNorm }), ...fields };
}

/** The label's copies as a write of `l` leaves them. */
export const labelCopyItems = (ws: string, l: LabelRecord): Record<string, unknown>[] => copiesOfItem(labelBody(ws, l));
