import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { CLOCK_SKEW_MS } from '#store/deployWindow';
import { ItemType, keys } from '#store/keys';
import { guardLayout } from '#store/labelGuards';
import { RELOOK_MS } from '#store/moveLayouts';
import { tableName } from '#store/table';
import { tx } from '#store/transactions';
import { markLayoutDone, moveOrName, moveWait } from './layoutMarks.ts';

type Item = Record<string, any>;

const WHY = 'changed while its title guard was moved';

/**
 * Gives every label its own title guard (store/labelGuardLayout.ts), from a scan taken once no function of the version
 * before can write one in the workspace's partition alone (the deploy's window after this version's first label write):
 * a guard put for a label as read (its id and folded title, in one transaction with a check of it), and an own guard
 * of a title no label has (the version before renamed or deleted its label) deleted, likewise checked. One
 * changed meanwhile is named: run again. A whole run with none says so on the layout item (`moved_at`): own guards hold
 * from then. Once every function has seen that (RELOOK_MS and a clock's skew later), the workspace's guards, which no
 * one reads any more, are deleted.
 */
export async function moveGuards(
  items: Item[],
  scannedAt: number,
  conflicts: string[],
  dryRun: boolean,
): Promise<{ count: number; waitUntil?: string }> {
  const layout = await guardLayout(false, true);
  if (layout.done) {
    const left = items.filter((i) => i.type === ItemType.labelTitleGuard);
    const after = layout.doneAt + RELOOK_MS + CLOCK_SKEW_MS;
    if (scannedAt < after) return { count: left.length, waitUntil: new Date(after).toISOString() };
    if (!dryRun) for (const g of left) await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: g.PK, SK: g.SK } }));
    return { count: left.length };
  }
  const own = new Map(items.filter((i) => i.type === ItemType.labelTitleGuardOwn).map((g) => [`${g.PK}|${g.SK}`, g]));
  const labels = items.filter((i) => i.type === ItemType.label);
  const normOf = (l: Item): string => l.title_norm ?? titleKey(l.title);
  const unguarded = labels.filter((l) => {
    const k = keys.labelTitleGuardOwn(l.workspace, normOf(l));
    return own.get(`${k.PK}|${k.SK}`)?.label_id !== l.id;
  });
  // An own guard of a title no label has now (one a label of it has, but for another label, is put over above).
  const titled = new Set(labels.map((l) => `${l.workspace}#${normOf(l)}`));
  const stale = [...own.values()].filter((g) => !titled.has(`${g.workspace}#${normOfGuard(g)}`));
  const count = unguarded.length + stale.length;
  const waitUntil = moveWait(layout.spreadAt, 'label', scannedAt);
  if (waitUntil) return { count, waitUntil };
  if (dryRun) return { count };
  for (const l of unguarded)
    await moveOrName(conflicts, `label ${l.workspace}/${l.slug}`, WHY, [
      [
        'label',
        tx.check(keys.label(l.workspace, l.slug), {
          condition: 'id = :id AND title_norm = :norm',
          values: { ':id': l.id, ':norm': normOf(l) },
        }),
      ],
      [
        'guard',
        tx.put({
          ...keys.labelTitleGuardOwn(l.workspace, normOf(l)),
          type: ItemType.labelTitleGuardOwn,
          workspace: l.workspace,
          label_id: l.id,
          label_slug: l.slug,
        }),
      ],
    ]);
  for (const g of stale)
    await moveOrName(conflicts, `title guard ${g.PK}`, WHY, [
      [
        'label',
        tx.check(keys.label(g.workspace, g.label_slug), {
          condition: 'attribute_not_exists(PK) OR id <> :id OR title_norm <> :norm',
          values: { ':id': g.label_id, ':norm': normOfGuard(g) },
        }),
      ],
      ['guard', tx.delete({ PK: g.PK, SK: g.SK }, { condition: 'label_id = :id', values: { ':id': g.label_id } })],
    ]);
  return { count };
}

/** The folded title an own guard is the guard of (its partition key's last part: keys.labelTitleGuardOwn). */
const normOfGuard = (g: Item): string => String(g.PK).slice(keys.labelTitleGuardOwn(g.workspace, '').PK.length);

/** Says on the layout item that every label has its own guard: own guards hold from now (within a function's relook). */
export const markGuardsMoved = (): Promise<void> => markLayoutDone(keys.labelGuardsLayout(), 'moved_at');
