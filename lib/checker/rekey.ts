import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nameKey, titleKey } from '#domain/text';
import { TransactionCancelled } from '#store/errors';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { transact, tx, type TransactItem } from '#store/transactions';
import type { Item } from '#store/query';
import { oldSecretsOf, sealSecrets } from './clearSecrets.ts';
import { scanTable } from './invariants';
import { isLegacyReceipt, isLegacyWebhookItem } from './legacy.ts';
import { COPIED, copiesOfItem } from '#store/copyLayouts';
import { decodeLabel } from '#store/labelItem';
import { guardLayout, guardPlaces, releaseGuards, takeGuards } from '#store/labelGuards';
import { revisionValues, sameRevision } from '#store/labels';
import { copyItems, markCopied } from './copyMoves.ts';
import { markGuardsMoved, moveGuards } from './guardMoves.ts';
import { markTalliesMoved, moveTallies } from './tallyMoves.ts';
import { tallyLayout } from '#store/labelTally';
import { awayFromHome, markRekeyed, moveTasksHome } from './taskMoves.ts';

/**
 * Brings keys up to the current design. Keys built from user text, to the current folding
 * (domain/text.ts): a project's name index key, a label's title_norm and title guard; tables written
 * before the folding changed keep working without it (renames and deletes read the stored keys), but
 * find-by-name misses such names. And stream receipts kept in their project's collection (before they
 * had partitions of their own, RECEIPT#<event id>), so a record the stream delivers again still finds
 * its receipt. `npm run check:table` reports both until they are rekeyed. And webhook secrets kept in
 * clear, from before they were sealed, or sealed before data keys were per workspace (store/sealing.ts): sealed anew. And the webhooks room's items kept in the
 * workspace's collection before the room had partitions of its own (store/keys.ts): moved. And tasks and states kept in
 * their project's shard 0 from before tasks spread: moved to their homes (taskMoves.ts), once the deploy's window has
 * passed; a whole table's run that leaves none says so on the table (then each task is read at home alone). And label
 * and project copies brought up to their items (copyMoves.ts), likewise once the window has passed; a whole table's run
 * with no conflict says so, kind by kind (then reads take the copies). And title guards to partitions of their own
 * (guardMoves.ts), likewise; then, once every function writes those alone, the workspace's removed. And label counts and
 * id counters to partitions of their own (tallyMoves.ts), likewise. Idempotent; every write is
 * conditional on what was read, so it is safe beside a running service. `workspaces` limits it
 * (tests share one table).
 */
export async function rekeyTable(opts: { dryRun?: boolean; workspaces?: string[] } = {}): Promise<{
  projects: number;
  labels: number;
  receipts: number;
  webhooks: number;
  secrets: number;
  tasks: number;
  states: number;
  /** Tasks and states were not moved: a function of the version before may still run until then. */
  waitUntil?: string;
  /** Labels whose copies were brought up to their item (store/copies.ts). */
  copies: number;
  /** Labels were not copied: a function of the version before may still write one until then. */
  copyAfter?: string;
  /** Projects whose copies were brought up to their item. */
  projectCopies: number;
  /** Projects were not copied: a function of the version before may still write one (or count on one) until then. */
  projectCopyAfter?: string;
  /**
   * Title guards put in partitions of their own (or, of those, removed: their label renamed or gone); once all are
   * there, the guards left in workspaces' partitions, removed (store/labelGuardLayout.ts).
   */
  titleGuards: number;
  /** Title guards were not moved (or those left not removed) until then: a function may still go by them. */
  titleGuardAfter?: string;
  /** Workspaces whose label count and id counter were moved to a partition of their own (store/labelTally.ts). */
  labelTallies: number;
  /** They were not moved until then: a function of the version before may still write them. */
  labelTallyAfter?: string;
  conflicts: string[];
}> {
  const scannedAt = Date.now();
  const scanned = (await scanTable(opts.workspaces)).filter((i) => !opts.workspaces || opts.workspaces.includes(i.workspace));
  const result = { projects: 0, labels: 0, receipts: 0, webhooks: 0, secrets: 0, tasks: 0, states: 0, conflicts: [] as string[] };
  // The webhooks room's items first, to its partitions: the secrets sealed below are sealed where they now are.
  const legacy = scanned.filter(isLegacyWebhookItem);
  result.webhooks = legacy.filter((i) => i.type === ItemType.webhook).length;
  if (!opts.dryRun) await moveWebhookItems(legacy, result.conflicts);
  const items = scanned.map((i) => (isLegacyWebhookItem(i) && !opts.dryRun ? { ...i, PK: keys.webhookCollection(i.workspace) } : i));
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
  // A title's guards where the table keeps them (store/labelGuards.ts).
  const places = guardPlaces(await guardLayout(false, true));
  for (const l of items.filter((i) => i.type === ItemType.label && i.title_norm !== titleKey(i.title))) {
    result.labels++;
    if (opts.dryRun) continue;
    try {
      // Its copies with it, as every label write writes them (store/copies.ts): as read, so on its revision read.
      await transact([
        [
          'label',
          tx.update(keys.label(l.workspace, l.slug), 'SET title_norm = :new', {
            condition: `id = :id AND title_norm = :old AND ${sameRevision(decodeLabel(l))}`,
            names: { '#rev': 'rev' },
            values: { ':new': titleKey(l.title), ':id': l.id, ':old': l.title_norm, ...revisionValues(decodeLabel(l)) },
          }),
        ],
        ...copiesOfItem({ ...l, title_norm: titleKey(l.title) }).map((c, n): [string, TransactItem] => [`copy:${n}`, tx.put(c)]),
        ...releaseGuards(l.workspace, l.title_norm, decodeLabel(l), places, 'oldGuard'),
        ...takeGuards(l.workspace, titleKey(l.title), decodeLabel(l), places, 'newGuard'),
      ]);
      // What the copies' step below reads: the label as it is now.
      l.title_norm = titleKey(l.title);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      // Another label already holds the folded title (e.g. `Bug` and `ＢＵＧ` from before): rename one; or the label
      // changed since the scan (its `label` part failed, the message says): run again.
      result.labels--;
      result.conflicts.push(`label ${l.workspace}/${l.slug} "${l.title}": ${error.message}`);
    }
  }
  // Last: sealing needs the secrets key, which a person may not use on a deployed stack (docs/webhooks.md).
  for (const w of items.filter((i) => oldSecretsOf(i) !== undefined)) {
    result.secrets++;
    if (opts.dryRun) continue;
    const sealed = await sealSecrets(w).catch((error: unknown) => {
      result.conflicts.push(`webhook ${w.workspace}/${w.id}: its secret could not be sealed (${(error as Error).message}); rotate it`);
      return true;
    });
    if (!sealed) result.conflicts.push(`webhook ${w.workspace}/${w.id}: changed while sealing; run again`);
  }
  const moved = await moveTasksHome(items, result.conflicts, opts.dryRun === true);
  const copied = await copyItems(COPIED.label, items, scannedAt, result.conflicts, opts.dryRun === true);
  const projectsCopied = await copyItems(COPIED.project, items, scannedAt, result.conflicts, opts.dryRun === true);
  const guards = await moveGuards(items, scannedAt, result.conflicts, opts.dryRun === true);
  const tallies = await moveTallies(items, scannedAt, result.conflicts, opts.dryRun === true);
  const whole = !opts.workspaces && !opts.dryRun && result.conflicts.length === 0;
  if (whole && copied.waitUntil === undefined) await markCopied(COPIED.label);
  if (whole && projectsCopied.waitUntil === undefined) await markCopied(COPIED.project);
  if (whole && guards.waitUntil === undefined && !(await guardLayout(false, true)).done) await markGuardsMoved();
  if (whole && tallies.waitUntil === undefined && !(await tallyLayout(false, true)).done) await markTalliesMoved();
  if (!opts.workspaces && !opts.dryRun && moved.waitUntil === undefined && result.conflicts.length === 0) {
    const now = await scanTable();
    const deleting = new Set(now.filter((i) => i.type === ItemType.projectDeletion).map((i) => i.project_id));
    const left = now.filter((i) => awayFromHome(i) && !deleting.has(i.project_id));
    if (left.length === 0) await markRekeyed();
  }
  return {
    ...result,
    ...moved,
    copies: copied.count,
    ...(copied.waitUntil ? { copyAfter: copied.waitUntil } : {}),
    projectCopies: projectsCopied.count,
    ...(projectsCopied.waitUntil ? { projectCopyAfter: projectsCopied.waitUntil } : {}),
    titleGuards: guards.count,
    ...(guards.waitUntil ? { titleGuardAfter: guards.waitUntil } : {}),
    labelTallies: tallies.count,
    ...(tallies.waitUntil ? { labelTallyAfter: tallies.waitUntil } : {}),
  };
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

/**
 * Webhooks to their workspace's collection of webhooks (HOOKS#), each in one transaction conditional on
 * the revision read (one changed meanwhile is named: run again). A send slot is a lease of seconds: the
 * old ones are only deleted. The counts of webhooks, the old and any new one, are deleted: the next create
 * or delete counts the workspace's webhooks afresh where they now are (store/workspaceCounts.ts).
 */
async function moveWebhookItems(legacy: Item[], conflicts: string[]): Promise<void> {
  const old = (i: Item) => ({ PK: String(i.PK), SK: String(i.SK) });
  for (const w of legacy.filter((i) => i.type === ItemType.webhook)) {
    try {
      await transact([
        ['new', tx.put({ ...w, ...keys.webhook(String(w.workspace), String(w.id)) }, { condition: 'attribute_not_exists(PK)' })],
        ['old', tx.delete(old(w), { condition: 'rev = :rev', values: { ':rev': w.rev } })],
      ]);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      if (error.conditionFailed('old')) conflicts.push(`webhook ${w.workspace}/${w.id}: changed while moving; run again`);
      // Moved already (an earlier run stopped between): the old copy only goes.
      else await transact([['old', tx.delete(old(w), { condition: 'rev = :rev', values: { ':rev': w.rev } })]]);
    }
  }
  for (const i of legacy.filter((i) => i.type !== ItemType.webhook)) await transact([['old', tx.delete(old(i))]]);
  for (const ws of new Set(legacy.map((i) => String(i.workspace)))) await transact([['count', tx.delete(keys.webhookCount(ws))]]);
}
