import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { getItem } from './batches';
import { SPREAD_AFTER_MS } from './deployWindow';
import { conditionally } from './errors';
import type { Key } from './keys';
import { tableName } from './table';

/** How long a function goes on with a layout read before `npm run rekey` said the table's move is done, before it looks again. */
export const RELOOK_MS = 5 * 60_000;

/** A layout a move of existing items goes by: since when this version writes the new layout, and whether the move is done. */
export interface MoveLayout {
  /** When this version's new layout began (epoch ms; Infinity: not yet): SPREAD_AFTER_MS after its first write. */
  spreadAt: number;
  /** Whether `npm run rekey` has moved everything written before and said so on the item (its `doneField`). */
  done: boolean;
  /** When it said so (epoch ms; Infinity: not yet). */
  doneAt: number;
}

const known = new Map<string, { layout: MoveLayout; at: number }>();

/**
 * The table's LAYOUT item `key` of a move (task shards: taskLayoutReads.ts; label copies: copies.ts), read once a
 * function, and again every RELOOK_MS until the move is done (a function that has not seen it yet reads as before the
 * move, nothing worse). A writer (`making`) that finds no item makes it, as of now; a reader takes "not begun, not done"
 * and asks again next time. `fresh`: read now whatever was read before (the offline tools, which go by the layout as it is).
 */
export async function readMoveLayout(
  key: Key,
  itemOf: (since: string) => Record<string, unknown>,
  doneField: string,
  making: boolean,
  fresh = false,
): Promise<MoveLayout> {
  const table = tableName();
  const id = `${table}|${key.PK}|${key.SK}`;
  const hit = known.get(id);
  if (hit && !fresh && (hit.layout.done || Date.now() - hit.at < RELOOK_MS)) return hit.layout;
  const read = () => getItem(key);
  let item = await read();
  if (!item && making) {
    const made = itemOf(new Date().toISOString());
    const put = new PutCommand({ TableName: table, Item: made, ConditionExpression: 'attribute_not_exists(PK)' });
    item = (await conditionally(db.send(put))) ? made : await read();
  }
  if (!item) return { spreadAt: Number.POSITIVE_INFINITY, done: false, doneAt: Number.POSITIVE_INFINITY };
  const done = item[doneField] !== undefined;
  const layout = {
    spreadAt: Date.parse(item.sharded_since as string) + SPREAD_AFTER_MS,
    done,
    doneAt: done ? Date.parse(String(item[doneField])) : Number.POSITIVE_INFINITY,
  };
  known.set(id, { layout, at: Date.now() });
  return layout;
}
