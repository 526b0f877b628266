import { ItemType, keys, WORKSPACE_COPIES, type Key } from './keys';

/**
 * What the workspace's copy partitions hold (copies.ts), pure, as the local tools and the checker make and read them:
 * for each kind of item copied, its copies' keys and type and the service's LAYOUT item of its copies.
 */
export interface CopiedKind {
  /** How a person names it: `label`, `project`. */
  what: string;
  /** The type of the items copied, and of their copies. */
  type: string;
  copyType: string;
  item: (ws: string, slug: string) => Key;
  copy: (ws: string, slug: string, n: number) => Key;
  /** Since when this version writes its copies, and, once `npm run rekey` has copied every item, when (`copied_at`). */
  layout: () => Key;
  layoutType: string;
  /**
   * Whether an item may have no copies yet: its create writes it alone, then its copies (a project's: projects.ts), which
   * its next update or `npm run rekey` puts if that failed. Reads that find no copy read the item. Its copies are all
   * there or none, never some.
   */
  copiesMayFollow: boolean;
}

export const COPIED = {
  label: {
    what: 'label',
    type: ItemType.label,
    copyType: ItemType.labelCopy,
    item: keys.label,
    copy: keys.labelCopy,
    layout: keys.labelCopiesLayout,
    layoutType: ItemType.labelCopiesLayout,
    copiesMayFollow: false,
  },
  project: {
    what: 'project',
    type: ItemType.project,
    copyType: ItemType.projectCopy,
    item: keys.project,
    copy: keys.projectCopy,
    layout: keys.projectCopiesLayout,
    layoutType: ItemType.projectCopiesLayout,
    copiesMayFollow: true,
  },
} as const satisfies Record<string, CopiedKind>;

export const COPIED_KINDS: readonly CopiedKind[] = Object.values(COPIED);

export const copiesLayoutItem = (kind: CopiedKind, since: string, copiedAt?: string) => ({
  ...kind.layout(),
  type: kind.layoutType,
  sharded_since: since,
  ...(copiedAt === undefined ? {} : { copied_at: copiedAt }),
});

/** The kind of copied item `item` is, or of copy; undefined: neither. */
const kindOf = (item: Record<string, unknown>): CopiedKind | undefined =>
  COPIED_KINDS.find((k) => k.type === item.type || k.copyType === item.type);

/** Attributes a copy never keeps: its item's keys, index keys and type (a copy is in no index). */
export const NOT_COPIED: readonly string[] = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'type'];

/** An item's copies, one in each copy partition of its workspace: the item as kept (its keys aside), typed as a copy. */
export function copiesOfItem(item: Record<string, unknown>): Record<string, unknown>[] {
  const kind = kindOf(item)!;
  const body = Object.fromEntries(Object.entries(item).filter(([k]) => !NOT_COPIED.includes(k)));
  return Array.from({ length: WORKSPACE_COPIES }, (_, n) => ({
    ...body,
    ...kind.copy(String(item.workspace), String(item.slug), n),
    type: kind.copyType,
  }));
}
