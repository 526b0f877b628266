import type { LabelRecord } from '#domain/entities';
import { num, optActor, optNum, optStr, str } from './codec';
import { ItemType, keys } from './keys';
import { labelBody } from './labelCopyLayout';
import type { Item, KeyRange } from './query';

/** The label item and its title guard as the table keeps them: keys and attributes, decoded back into the entity, and the range of a family of slugs. */

/** A label's case-insensitive title: the key of its title guard (the domain's titleKey: folded, bounded in bytes). */
export type TitleKey = (title: string) => string;

export function labelItem(ws: string, l: LabelRecord, titleKey: TitleKey): Item {
  return { ...keys.label(ws, l.slug), ...labelBody(ws, { ...l, titleNorm: titleKey(l.title) }) };
}

/**
 * The key the label's guard is stored under: as read, so a label written under an earlier folding
 * is still renamed and deleted cleanly (and its old guard released), not stuck.
 */
export function storedTitleKey(l: LabelRecord, titleKey: TitleKey): string {
  return l.titleNorm ?? titleKey(l.title);
}

/** A label's title guard as a table the local tools make keeps it: in a partition of its own (labelGuardLayout.ts). */
export function titleGuardItem(ws: string, title: string, label: { id: number; slug: string }, titleKey: TitleKey): Item {
  return {
    ...keys.labelTitleGuardOwn(ws, titleKey(title)),
    type: ItemType.labelTitleGuardOwn,
    workspace: ws,
    label_id: label.id,
    label_slug: label.slug,
  };
}

export function decodeLabel(item: Item): LabelRecord {
  const label: LabelRecord = {
    id: num(item, 'id'),
    slug: str(item, 'slug'),
    title: str(item, 'title'),
    color: str(item, 'color'),
    created_at: str(item, 'created_at'),
    updated_at: str(item, 'updated_at'),
  };
  const by = optActor(item, 'updated_by');
  if (by !== undefined) label.updated_by = by;
  const titleNorm = optStr(item, 'title_norm');
  if (titleNorm !== undefined) label.titleNorm = titleNorm;
  const rev = optNum(item, 'rev');
  if (rev !== undefined) label.rev = rev;
  return label;
}

/** The label items whose slug starts with `slugPrefix`, for picking a free slug. */
export function labelSlugsRange(ws: string, slugPrefix: string): KeyRange {
  return { partition: keys.workspace(ws), sortPrefix: `${keys.labelSkPrefix}${slugPrefix}` };
}

export function slugOfLabelItem(item: Item): string {
  return str(item, 'SK').slice(keys.labelSkPrefix.length);
}
