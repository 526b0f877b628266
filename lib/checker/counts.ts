import { ItemType } from '#store/keys';
import type { Item } from '#store/query';

/**
 * A workspace's counts (its labels, its webhooks: store/workspaceCounts.ts), once kept, move in the
 * same transactions as what they count, so they are always exact: one that differs from the items it
 * counts is a violation.
 */
export function countViolations(of: (type: string) => Item[]): string[] {
  const v: string[] = [];
  for (const [countType, itemType] of [
    [ItemType.labelCount, ItemType.label],
    [ItemType.webhookCount, ItemType.webhook],
  ] as const) {
    const held = new Map<unknown, number>();
    for (const i of of(itemType)) held.set(i.workspace, (held.get(i.workspace) ?? 0) + 1);
    for (const c of of(countType)) {
      const n = held.get(c.workspace) ?? 0;
      if (c.count !== n) v.push(`${countType} ${String(c.PK)} / ${String(c.SK)} says ${String(c.count)}, the workspace holds ${n}`);
    }
  }
  return v;
}
