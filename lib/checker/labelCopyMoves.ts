import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { CLOCK_SKEW_MS } from '#store/deployWindow';
import { TransactionCancelled } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { copiesOfItem, labelCopiesLayoutItem } from '#store/labelCopyLayout';
import { decodeLabel } from '#store/labelItem';
import { labelStillAsRead } from '#store/labels';
import { readMoveLayout } from '#store/moveLayouts';
import { tableName } from '#store/table';
import { transact, tx } from '#store/transactions';
import { sameBody } from './labelCopies.ts';

type Item = Record<string, any>;

/**
 * Brings every label's copies (store/labelCopies.ts) up to its item, from a scan taken once no function of the version
 * before can write a label without them (the deploy's window after this version's first label write): a label's copies are put as
 * its item is, in one transaction conditional on the item's revision read (one changed meanwhile is named: run again),
 * and a copy of a label that is gone is deleted, conditional on the item still being gone. Labels whose copies are all
 * as their item are left alone.
 */
export async function copyLabels(
  items: Item[],
  scannedAt: number,
  conflicts: string[],
  dryRun: boolean,
): Promise<{ labels: number; waitUntil?: string }> {
  // Read, never made here: a run before the deploy (a dry run from a new checkout) must not start the window.
  const { spreadAt } = await readMoveLayout(keys.labelCopiesLayout(), (since) => labelCopiesLayoutItem(since), 'copied_at', false);
  const slot = (i: Item) => `${i.PK}|${i.SK}`;
  const copies = new Map(items.filter((i) => i.type === ItemType.labelCopy).map((c) => [slot(c), c]));
  const labels = items.filter((i) => i.type === ItemType.label);
  const stale = labels.filter((l) => copiesOfItem(l).some((c) => !sameBody(c, copies.get(slot(c)))));
  const labelOf = new Map(labels.map((l) => [`${l.workspace}|${l.slug}`, l]));
  // Copies of a slug no label has now; one a new label of the slug took (the version before deleted and made it again)
  // is its copy's place, and its copies are put there above.
  const orphans = [...copies.values()].filter((c) => !labelOf.has(`${c.workspace}|${c.slug}`));
  const count = stale.length + new Set(orphans.map((c) => `${c.workspace}|${c.slug}`)).size;
  // The scan must come after the window (and a clock's skew): a label the version before wrote alone is then in it.
  if (!Number.isFinite(spreadAt)) return { labels: count, waitUntil: "15 minutes after this version's first label write" };
  if (scannedAt < spreadAt + CLOCK_SKEW_MS) return { labels: count, waitUntil: new Date(spreadAt + CLOCK_SKEW_MS).toISOString() };
  if (dryRun) return { labels: count };
  for (const l of stale) {
    await write(conflicts, `label ${l.workspace}/${l.slug}`, [
      ['label', labelStillAsRead(l.workspace, decodeLabel(l))],
      ...copiesOfItem(l).map((c, n): [string, ReturnType<typeof tx.put>] => [`copy:${n}`, tx.put(c)]),
    ]);
  }
  for (const c of orphans)
    await write(conflicts, `label copy ${c.PK} / ${c.SK}`, [
      ['label', tx.check(keys.label(c.workspace, c.slug), { condition: 'attribute_not_exists(PK) OR id <> :id', values: { ':id': c.id } })],
      ['copy', tx.delete({ PK: c.PK, SK: c.SK }, { condition: 'id = :id', values: { ':id': c.id } })],
    ]);
  return { labels: count };
}

/** Says on the LAYOUT item that every label has its copies: reads take them from now (within a function's relook). */
export async function markCopied(): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.labelCopiesLayout(),
      UpdateExpression: 'SET copied_at = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
}

async function write(conflicts: string[], what: string, parts: Parameters<typeof transact>[0]): Promise<void> {
  await transact(parts).catch((error: unknown) => {
    if (!(error instanceof TransactionCancelled)) throw error;
    conflicts.push(`${what}: changed while copying; run again`);
  });
}
