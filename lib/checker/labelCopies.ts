import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';

type Item = Record<string, any>;

/** Whether every label has its copies (store/labelCopies.ts): `npm run rekey` said so on the service's LAYOUT item. */
export async function labelsCopied(): Promise<boolean> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelCopiesLayout(), ConsistentRead: true }));
  return Item?.copied_at !== undefined;
}

/** What a copy keeps of its label's item: every attribute but its keys and type. */
const body = (i: Item) => Object.fromEntries(Object.entries(i).filter(([k]) => !['PK', 'SK', 'type'].includes(k)));

/**
 * Once the labels are copied (reads take a copy): each label has a copy in every copy partition of its workspace, each
 * the same as its item, and no copy is left of a label that is gone (or of another label of its slug). Before, copies
 * are not read, and `npm run rekey` brings them up to date: nothing to say.
 */
export function labelCopyViolations(items: Item[], copied: boolean): string[] {
  if (!copied) return [];
  const v: string[] = [];
  const slot = (i: Item) => `${i.PK}|${i.SK}`;
  const copies = new Map(items.filter((i) => i.type === ItemType.labelCopy).map((c) => [slot(c), c]));
  const labels = new Map(items.filter((i) => i.type === ItemType.label).map((l) => [`${l.workspace}|${l.slug}`, l]));
  for (const l of labels.values())
    for (let n = 0; n < WORKSPACE_COPIES; n++) {
      const copy = copies.get(slot(keys.labelCopy(l.workspace, l.slug, n)));
      if (!copy) v.push(`label ${l.workspace}/${l.slug} has no copy in ${keys.copyPartition(l.workspace, n)}`);
      else if (!sameBody(copy, l)) v.push(`label ${l.workspace}/${l.slug}: its copy in ${copy.PK} is not the same as its item`);
    }
  for (const c of copies.values()) {
    const label = labels.get(`${c.workspace}|${c.slug}`);
    const placed = Array.from({ length: WORKSPACE_COPIES }, (_, n) => keys.copyPartition(c.workspace, n)).includes(c.PK);
    if (!label || label.id !== c.id || !placed) v.push(`label copy ${c.PK} / ${c.SK} has no label it copies`);
  }
  return v;
}

const sorted = (o: Item) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Whether two items keep the same attributes, their keys and type aside (a copy and its label's item). */
export const sameBody = (a: Item, b: Item | undefined) =>
  b !== undefined && JSON.stringify(sorted(body(a))) === JSON.stringify(sorted(body(b)));
