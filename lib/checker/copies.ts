import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { COPIED_KINDS, NOT_COPIED, type CopiedKind } from '#store/copyLayouts';
import { keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';

type Item = Record<string, any>;

/** Whether every item of `kind` has its copies (store/copies.ts): `npm run rekey` said so on the kind's LAYOUT item. */
async function allCopied(kind: CopiedKind): Promise<boolean> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: kind.layout(), ConsistentRead: true }));
  return Item?.copied_at !== undefined;
}

/** What a copy keeps of its item: every attribute but its keys, index keys and type. */
const body = (i: Item) => Object.fromEntries(Object.entries(i).filter(([k]) => !NOT_COPIED.includes(k)));

/**
 * Of each kind copied (labels, projects) whose items are all copied (reads take a copy): each item has a copy in every
 * copy partition of its workspace, each the same as it (or, for a kind whose copies may follow their item, none), and
 * no copy is left of an item that is gone (or of another of its slug). Before, copies are not read, and `npm run rekey` brings them up to date: nothing to say.
 */
export async function copyViolations(items: Item[]): Promise<string[]> {
  const v: string[] = [];
  for (const kind of COPIED_KINDS) if (await allCopied(kind)) v.push(...violationsOf(kind, items));
  return v;
}

function violationsOf(kind: CopiedKind, items: Item[]): string[] {
  const v: string[] = [];
  const slot = (i: Item) => `${i.PK}|${i.SK}`;
  const copies = new Map(items.filter((i) => i.type === kind.copyType).map((c) => [slot(c), c]));
  const originals = new Map(items.filter((i) => i.type === kind.type).map((l) => [`${l.workspace}|${l.slug}`, l]));
  const copiesOf = (o: Item) => Array.from({ length: WORKSPACE_COPIES }, (_, n) => copies.get(slot(kind.copy(o.workspace, o.slug, n))));
  for (const o of originals.values()) {
    // Written alone by its create, its copies not yet (copiesMayFollow): reads take the item, and nothing is half made.
    if (kind.copiesMayFollow && copiesOf(o).every((c) => c === undefined)) continue;
    for (const [n, copy] of copiesOf(o).entries()) {
      if (!copy) v.push(`${kind.what} ${o.workspace}/${o.slug} has no copy in ${keys.copyPartition(o.workspace, n)}`);
      else if (!sameBody(copy, o)) v.push(`${kind.what} ${o.workspace}/${o.slug}: its copy in ${copy.PK} is not the same as its item`);
    }
  }
  for (const c of copies.values()) {
    const original = originals.get(`${c.workspace}|${c.slug}`);
    const placed = Array.from({ length: WORKSPACE_COPIES }, (_, n) => keys.copyPartition(c.workspace, n)).includes(c.PK);
    if (!original || original.id !== c.id || !placed) v.push(`${kind.what} copy ${c.PK} / ${c.SK} has no ${kind.what} it copies`);
  }
  return v;
}

const sorted = (o: Item) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Whether two items keep the same attributes, their keys, index keys and type aside (a copy and its item). */
export const sameBody = (a: Item, b: Item | undefined) =>
  b !== undefined && JSON.stringify(sorted(body(a))) === JSON.stringify(sorted(body(b)));
