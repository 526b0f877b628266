import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getItems } from './batches';
import { db } from './client';
import { ItemType, keys } from './keys';
import { queryAll } from './query';
import { tableName } from './table';
import { labelTombstones } from './tombstones';
import { copiesPartition, copyDeletes, copyPuts } from './copies';
import { COPIED } from './copyLayouts';
import { labelBody } from './labelCopyLayout';
import { transact, tx, type TransactItem } from './transactions';
import type { CountTries } from './workspaceCounts';
import { labelTally } from './labelTally';
import type { Actor, LabelRecord } from '#domain/entities';
import { decodeLabel, labelItem, storedTitleKey, type TitleKey } from './labelItem';
import { releaseGuards, takeGuards, writePlaces } from './labelGuards';

/** Every read and write of a label item and its title guards (labelGuards.ts; their shape: labelItem.ts); the count and id counter: labelTally.ts. */

export async function readLabels(ws: string): Promise<LabelRecord[]> {
  return (await queryAll({ partition: await copiesPartition(COPIED.label, ws), sortPrefix: keys.labelSkPrefix })).map(decodeLabel);
}

/** A label's item or one of its copies (copies.ts): either is as it was after the last write. */
const labelKeyIn = (partition: string, ws: string, slug: string) => ({ PK: partition, SK: keys.label(ws, slug).SK });

/** A label, from a copy; `fromItem`, from its item (copiesPartition). */
export async function readLabel(ws: string, slug: string, fromItem = false): Promise<LabelRecord | undefined> {
  const Key = labelKeyIn(await copiesPartition(COPIED.label, ws, fromItem), ws, slug);
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
  return Item ? decodeLabel(Item) : undefined;
}

/** Labels by slug (for resolving links), keeping only those whose id is still the one wanted. */
export async function readLabelsBySlug(ws: string, wanted: { slug: string; id: number }[]): Promise<Map<number, LabelRecord>> {
  const slugs = [...new Set(wanted.map((w) => w.slug))];
  const wantedIds = new Set(wanted.map((w) => w.id));
  const found = new Map<number, LabelRecord>();
  const partition = await copiesPartition(COPIED.label, ws);
  for (const item of await getItems(slugs.map((slug) => labelKeyIn(partition, ws, slug)))) {
    const label = decodeLabel(item);
    if (wantedIds.has(label.id)) found.set(label.id, label);
  }
  return found;
}

/** Writes a new label with its title guard and its place in the count (parts `label`, `guard`, `count`: conditional), and its copies. */
export async function putNewLabel(ws: string, label: LabelRecord, titleKey: TitleKey, count: TransactItem): Promise<void> {
  await transact([
    ['label', tx.put(labelItem(ws, label, titleKey), { condition: 'attribute_not_exists(PK)' })],
    ...takeGuards(ws, titleKey(label.title), label, await writePlaces(), 'guard'),
    ['count', count],
    ...(await copyPuts(labelBody(ws, { ...label, titleNorm: titleKey(label.title) }))),
  ]);
}

/** The condition that the label is still the revision `read` (for a write a client made conditional: If-Match). */
export function sameRevision(read: LabelRecord): string {
  return read.rev === undefined ? 'attribute_not_exists(#rev)' : '#rev = :readRev';
}

/** The value `sameRevision(read)` names (none when it has no revision), for the condition's values. */
export const revisionValues = (read: LabelRecord): Record<string, number> => (read.rev === undefined ? {} : { ':readRev': read.rev });

/**
 * A transaction part (name it `labelAsRead`) that holds only while the label is still the one read,
 * at the revision read: what makes a change of its links conditional on If-Match.
 */
export function labelStillAsRead(ws: string, read: LabelRecord): TransactItem {
  return tx.check(keys.label(ws, read.slug), {
    condition: `id = :readId AND ${sameRevision(read)}`,
    names: { '#rev': 'rev' },
    values: { ':readId': read.id, ...revisionValues(read) },
  });
}

/**
 * Writes a new title (and color, when it changes) over `current`, moving the title guard when the
 * title changes case-insensitively, and counts the change in the label's revision. Conditional on
 * the revision read, so a change made in between (a recolor included) is never written over: the
 * caller reads again. Parts: `label` (still this label at that revision), `oldGuard`, `newGuard`
 * (the new title is free). `next.updated_by` is recorded as the actor.
 */
export async function rewriteLabel(ws: string, current: LabelRecord, next: LabelRecord, titleKey: TitleKey): Promise<void> {
  const recolor = next.color !== current.color;
  const parts: [string, TransactItem][] = [
    [
      'label',
      tx.update(
        keys.label(ws, current.slug),
        `SET title = :title, title_norm = :norm, ${recolor ? 'color = :color, ' : ''}updated_at = :now, updated_by = :by, #rev = if_not_exists(#rev, :zero) + :one`,
        {
          condition: `id = :id AND title_norm = :oldNorm AND ${sameRevision(current)}`,
          names: { '#rev': 'rev' },
          values: {
            ':title': next.title,
            ':norm': titleKey(next.title),
            ...(recolor ? { ':color': next.color } : {}),
            ':now': next.updated_at,
            ':by': next.updated_by,
            ':id': current.id,
            ':oldNorm': storedTitleKey(current, titleKey),
            ':zero': 0,
            ':one': 1,
            ...revisionValues(current),
          },
        },
      ),
    ],
  ];
  parts.push(...(await copyPuts(labelBody(ws, { ...next, titleNorm: titleKey(next.title) }))));
  if (titleKey(next.title) !== storedTitleKey(current, titleKey)) {
    const places = await writePlaces();
    parts.push(
      ...releaseGuards(ws, storedTitleKey(current, titleKey), current, places, 'oldGuard'),
      ...takeGuards(ws, titleKey(next.title), next, places, 'newGuard'),
    );
  }
  await transact(parts);
}

/**
 * Deletes the label and its title guard (if they are still this label's) and writes its deletion
 * job in the same transaction: the label is gone from every read at once, its title and slug are
 * free, and the job's stream record starts the cascade that takes it off every task and label set.
 * Parts: `label` (`asRead`: still the revision read), `guard`, `job`, `count`, `mark:<shard>` (its tombstones,
 * tombstones.ts).
 */
export async function deleteLabelItems(
  ws: string,
  label: LabelRecord,
  titleKey: TitleKey,
  actor: Actor,
  count: CountTries,
  asRead = false,
): Promise<void> {
  const { titleNorm: _stored, rev: _rev, ...record } = label;
  const countOut = await count.out((await labelTally(ws)).count, ws);
  const deletedAt = new Date().toISOString();
  const labelCondition = asRead
    ? {
        condition: `id = :id AND ${sameRevision(label)}`,
        names: { '#rev': 'rev' },
        values: { ':id': label.id, ...revisionValues(label) },
      }
    : { condition: 'id = :id', values: { ':id': label.id } };
  await transact([
    ['label', tx.delete(keys.label(ws, label.slug), labelCondition)],
    ...releaseGuards(ws, storedTitleKey(label, titleKey), label, await writePlaces(), 'guard'),
    [
      'job',
      tx.put(
        {
          ...keys.labelDeletion(ws, label.id),
          type: ItemType.labelDeletion,
          workspace: ws,
          label_id: label.id,
          label_slug: label.slug,
          label: record,
          actor,
          deleted_at: deletedAt,
          round: 0,
        },
        { condition: 'attribute_not_exists(PK)' },
      ),
    ],
    ['count', countOut],
    ...labelTombstones(ws, label, deletedAt),
    ...copyDeletes(COPIED.label, ws, label.slug),
  ]);
}
