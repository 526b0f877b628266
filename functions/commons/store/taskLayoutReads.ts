import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { SPREAD_AFTER_MS } from './deployWindow';
import { conditionally } from './errors';
import { keys } from './keys';
import { tableName } from './table';
import { taskShardsLayoutItem, type TaskLayout } from './taskShardLayout';

/** How long a function goes on with a layout read before `npm run rekey` said the table is rekeyed, before it looks again. */
const RELOOK_MS = 5 * 60_000;

const known = new Map<string, { layout: TaskLayout; at: number }>();

/**
 * The table's task layout (taskShardLayout.ts), read once a function (again every RELOOK_MS until it is rekeyed: a
 * function that has not seen it yet reads one more shard, nothing worse). A writer (`making`) that finds no item makes
 * it, as of now; a reader takes "not spread, not rekeyed" and asks again next time.
 */
export async function readTaskLayout(making: boolean): Promise<TaskLayout> {
  const table = tableName();
  const hit = known.get(table);
  if (hit && (hit.layout.rekeyed || Date.now() - hit.at < RELOOK_MS)) return hit.layout;
  const read = async () => (await db.send(new GetCommand({ TableName: table, Key: keys.taskShardsLayout(), ConsistentRead: true }))).Item;
  let item = await read();
  if (!item && making) {
    const made = taskShardsLayoutItem(new Date().toISOString());
    const put = new PutCommand({ TableName: table, Item: made, ConditionExpression: 'attribute_not_exists(PK)' });
    item = (await conditionally(db.send(put))) ? made : await read();
  }
  if (!item) return { spreadAt: Number.POSITIVE_INFINITY, rekeyed: false };
  const layout = { spreadAt: Date.parse(item.sharded_since as string) + SPREAD_AFTER_MS, rekeyed: item.rekeyed_at !== undefined };
  known.set(table, { layout, at: Date.now() });
  return layout;
}
