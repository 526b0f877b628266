import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nameKey, titleKey } from '#domain/text';
import { TransactionCancelled } from '#store/errors';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { transact, tx } from '#store/transactions';
import type { Item } from '#store/query';
import { holdsClearSecret, sealSecrets } from './clearSecrets.ts';
import { isLegacyReceipt, scanTable } from './invariants';

/**
 * Brings keys up to the current design. Keys built from user text, to the current folding
 * (domain/text.ts): a project's name index key, a label's title_norm and title guard; tables written
 * before the folding changed keep working without it (renames and deletes read the stored keys), but
 * find-by-name misses such names. And stream receipts kept in their project's collection (before they
 * had partitions of their own, RECEIPT#<event id>), so a record the stream delivers again still finds
 * its receipt. `npm run check:table` reports both until they are rekeyed. And webhook secrets kept in
 * clear, from before they were sealed (store/sealing.ts): sealed. Idempotent; every write is
 * conditional on what was read, so it is safe beside a running service. `workspaces` limits it
 * (tests share one table).
 */
export async function rekeyTable(
  opts: { dryRun?: boolean; workspaces?: string[] } = {},
): Promise<{ projects: number; labels: number; receipts: number; secrets: number; conflicts: string[] }> {
  const items = (await scanTable(opts.workspaces)).filter((i) => !opts.workspaces || opts.workspaces.includes(i.workspace));
  const result = { projects: 0, labels: 0, receipts: 0, secrets: 0, conflicts: [] as string[] };
  for (const w of items.filter(holdsClearSecret)) {
    result.secrets++;
    if (!opts.dryRun && !(await sealSecrets(w))) result.conflicts.push(`webhook ${w.workspace}/${w.id}: changed while sealing; run again`);
  }
  for (const r of items.filter(isLegacyReceipt)) {
    result.receipts++;
    if (!opts.dryRun) await moveReceipt(r);
  }
  for (const p of items.filter((i) => i.type === ItemType.project && i.GSI2SK !== nameKey(i.name))) {
    result.projects++;
    if (opts.dryRun) continue;
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: p.PK, SK: p.SK },
        UpdateExpression: 'SET GSI2SK = :key',
        ConditionExpression: '#name = :name',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':key': nameKey(p.name), ':name': p.name },
      }),
    );
  }
  for (const l of items.filter((i) => i.type === ItemType.label && i.title_norm !== titleKey(i.title))) {
    result.labels++;
    if (opts.dryRun) continue;
    try {
      await transact([
        [
          'label',
          tx.update(keys.label(l.workspace, l.slug), 'SET title_norm = :new', {
            condition: 'id = :id AND title_norm = :old',
            values: { ':new': titleKey(l.title), ':id': l.id, ':old': l.title_norm },
          }),
        ],
        ['oldGuard', tx.delete(keys.labelTitleGuard(l.workspace, l.title_norm), { condition: 'label_id = :id', values: { ':id': l.id } })],
        [
          'newGuard',
          tx.put(
            {
              ...keys.labelTitleGuard(l.workspace, titleKey(l.title)),
              type: ItemType.labelTitleGuard,
              workspace: l.workspace,
              label_id: l.id,
              label_slug: l.slug,
            },
            { condition: 'attribute_not_exists(PK)' },
          ),
        ],
      ]);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      // Another label already holds the folded title (e.g. `Bug` and `ＢＵＧ` from before): rename one.
      result.labels--;
      result.conflicts.push(`label ${l.workspace}/${l.slug} "${l.title}": ${error.message}`);
    }
  }
  return result;
}

/** A receipt to its own partition; when one is there already (its record came again meanwhile), the old one goes. */
async function moveReceipt(r: Item): Promise<void> {
  const old = { PK: String(r.PK), SK: String(r.SK) };
  const moved = { ...r, ...keys.streamReceipt(String(r.SK).slice(keys.legacyReceiptSkPrefix.length)) };
  try {
    await transact([
      ['new', tx.put(moved, { condition: 'attribute_not_exists(PK)' })],
      ['old', tx.delete(old, { condition: 'attribute_exists(PK)' })],
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('new')) await transact([['old', tx.delete(old)]]);
  }
}
