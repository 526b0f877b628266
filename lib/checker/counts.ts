import { ItemType, keys } from '#store/keys';
import type { Item } from '#store/query';

/**
 * A workspace's counts (its labels, its webhooks: store/workspaceCounts.ts), once kept, move in the
 * same transactions as what they count, so they are always exact: one that differs from the items it
 * counts is a violation. A sealed one (a label count the version before kept, moved: store/labelTally.ts) counts nothing.
 */
export function countViolations(of: (type: string) => Item[]): string[] {
  const v: string[] = [];
  for (const [countType, itemType] of [
    [ItemType.labelCount, ItemType.label],
    [ItemType.webhookCount, ItemType.webhook],
  ] as const) {
    const held = new Map<unknown, number>();
    for (const i of of(itemType)) held.set(i.workspace, (held.get(i.workspace) ?? 0) + 1);
    for (const c of of(countType).filter((i) => i.sealed === undefined)) {
      const n = held.get(c.workspace) ?? 0;
      if (c.count !== n) v.push(`${countType} ${String(c.PK)} / ${String(c.SK)} says ${String(c.count)}, the workspace holds ${n}`);
    }
  }
  return v;
}

/**
 * A workspace's label tally (store/labelTally.ts) holds in one place: its count and id counter in the workspace's
 * partition until they are sealed, in their own from then (each made with the seal, the counter always).
 */
export function tallyViolations(of: (type: string) => Item[]): string[] {
  const v: string[] = [];
  for (const type of [ItemType.labelCount, ItemType.labelIdCounter]) {
    const open = new Map<unknown, number>();
    for (const c of of(type).filter((i) => i.sealed === undefined)) open.set(c.workspace, (open.get(c.workspace) ?? 0) + 1);
    for (const [ws, n] of open) if (n > 1) v.push(`${type} of ${String(ws)} is kept in ${n} places, none sealed`);
  }
  const own = new Map(
    of(ItemType.labelIdCounter)
      .filter((c) => c.PK === keys.labelIdCounterOwn(String(c.workspace)).PK)
      .map((c) => [c.workspace, c.next_id as number]),
  );
  // The own counter goes on from where the sealed one stopped, never below it (an id would be given again).
  for (const sealed of of(ItemType.labelIdCounter).filter((i) => i.sealed !== undefined && typeof i.next_id === 'number'))
    if (own.has(sealed.workspace) && own.get(sealed.workspace)! < Number(sealed.next_id))
      v.push(
        `the label id counter of ${String(sealed.workspace)} is at ${own.get(sealed.workspace)}, below the sealed one's ${String(sealed.next_id)}`,
      );
  for (const sealed of [...of(ItemType.labelCount), ...of(ItemType.labelIdCounter)].filter((i) => i.sealed !== undefined))
    if (!own.has(sealed.workspace))
      v.push(
        `${sealed.type} ${String(sealed.PK)} / ${String(sealed.SK)} is sealed, and ${String(sealed.workspace)} has no tally of its own`,
      );
  return [...v, ...idViolations(of)];
}

/** Every label's id is at or below the counter that holds (the one not sealed), a deleted label's too (its job, its marks). */
function idViolations(of: (type: string) => Item[]): string[] {
  const counters = new Map(
    of(ItemType.labelIdCounter)
      .filter((c) => c.sealed === undefined)
      .map((c) => [c.workspace, c.next_id as number]),
  );
  const gone = [...of(ItemType.labelDeletion), ...of(ItemType.tombstone).filter((t) => t.label_id !== undefined)];
  const v: string[] = [];
  for (const l of [...of(ItemType.label), ...gone.map((d) => ({ workspace: d.workspace, slug: d.label_slug, id: d.label_id }))]) {
    const next = counters.get(l.workspace) ?? 0;
    if (Number(l.id) > next)
      v.push(`label ${String(l.workspace)}/${String(l.slug)} has id ${String(l.id)} above the workspace counter ${next}`);
  }
  return v;
}
