import { COPIED, copiesLayoutItem, copiesOfItem, type CopiedKind } from '#store/copyLayouts';
import { keys } from '#store/keys';
import { decodeLabel } from '#store/labelItem';
import { labelStillAsRead } from '#store/labels';
import { readMoveLayout } from '#store/moveLayouts';
import { decodeProject, sameRevision } from '#store/projectItem';
import { statsLayoutItem } from '#store/statsLayout';
import { serviceSpreadAt } from '#store/serviceLayouts';
import { tx, type TransactItem } from '#store/transactions';
import { sameBody } from './copies.ts';
import { markLayoutDone, moveOrName, moveWait } from './layoutMarks.ts';

type Item = Record<string, any>;

/** The check that an item is still as the scan read it (its revision), which a copy's put is conditional on. */
const STILL_AS_READ: Record<string, (i: Item) => TransactItem> = {
  [COPIED.label.what]: (l) => labelStillAsRead(l.workspace, decodeLabel(l)),
  [COPIED.project.what]: (p) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    return tx.check(keys.project(p.workspace, p.slug), { condition: sameRevision(decodeProject(p), names, values), names, values });
  },
};

/**
 * When a kind's copies can be brought up to their items (epoch ms): once no function of the version before can write
 * one without them (the deploy's window after this version's first write of one). A project's, also once none counts
 * on its item (projectStats.ts): a count there changes no revision, so a copy's put could not see it.
 */
async function readyAt(kind: CopiedKind): Promise<number> {
  // Read, never made here: a run before the deploy (a dry run from a new checkout) must not start the window.
  const { spreadAt } = await readMoveLayout(kind.layout(), (since) => copiesLayoutItem(kind, since), 'copied_at', false);
  if (kind !== COPIED.project) return spreadAt;
  return Math.max(spreadAt, await serviceSpreadAt(keys.statsLayout(), statsLayoutItem, false));
}

/**
 * Brings every copy of `kind` (store/copies.ts) up to its item, from a scan taken once it is ready (readyAt): an item's
 * copies are put as it is, in one transaction conditional on the item's revision read (one changed meanwhile is named:
 * run again), and a copy of an item that is gone is deleted, conditional on the item still being gone. Items whose
 * copies are all as they are are left alone.
 */
export async function copyItems(
  kind: CopiedKind,
  items: Item[],
  scannedAt: number,
  conflicts: string[],
  dryRun: boolean,
): Promise<{ count: number; waitUntil?: string }> {
  const ready = await readyAt(kind);
  const slot = (i: Item) => `${i.PK}|${i.SK}`;
  const copies = new Map(items.filter((i) => i.type === kind.copyType).map((c) => [slot(c), c]));
  const originals = items.filter((i) => i.type === kind.type);
  const stale = originals.filter((o) => copiesOfItem(o).some((c) => !sameBody(c, copies.get(slot(c)))));
  const originalOf = new Map(originals.map((o) => [`${o.workspace}|${o.slug}`, o]));
  // Copies of a slug no item has now; one a new item of the slug took (the version before deleted and made it again)
  // is its copy's place, and its copies are put there above.
  const orphans = [...copies.values()].filter((c) => !originalOf.has(`${c.workspace}|${c.slug}`));
  const count = stale.length + new Set(orphans.map((c) => `${c.workspace}|${c.slug}`)).size;
  // The scan must come after it is ready (and a clock's skew): an item the version before wrote alone is then in it.
  const waitUntil = moveWait(ready, kind.what, scannedAt);
  if (waitUntil) return { count, waitUntil };
  if (dryRun) return { count };
  for (const o of stale) {
    await moveOrName(conflicts, `${kind.what} ${o.workspace}/${o.slug}`, 'changed while copying', [
      [kind.what, STILL_AS_READ[kind.what]!(o)],
      ...copiesOfItem(o).map((c, n): [string, TransactItem] => [`copy:${n}`, tx.put(c)]),
    ]);
  }
  for (const c of orphans)
    await moveOrName(conflicts, `${kind.what} copy ${c.PK} / ${c.SK}`, 'changed while copying', [
      [
        kind.what,
        tx.check(kind.item(c.workspace, c.slug), { condition: 'attribute_not_exists(PK) OR id <> :id', values: { ':id': c.id } }),
      ],
      ['copy', tx.delete({ PK: c.PK, SK: c.SK }, { condition: 'id = :id', values: { ':id': c.id } })],
    ]);
  return { count };
}

/** Says on the kind's LAYOUT item that every item has its copies: reads take them from now (within a function's relook). */
export const markCopied = (kind: CopiedKind): Promise<void> => markLayoutDone(kind.layout(), 'copied_at');
