import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';

/**
 * A workspace's history as it is long after the service first wrote it: spread over every shard, and no event of it
 * older than the spread (functions/commons/store/activityLayout.ts): its LAYOUT item. What the capacity model measures,
 * whatever table it runs on, and what the bench and tests set. `since`, when given, is when this version first wrote it
 * (the spread begins 15 minutes after; now: as during a deploy).
 */
export async function historySpread(ws: string, since = new Date(0).toISOString()): Promise<void> {
  const layout = { ...keys.activityLayout(ws), type: ItemType.activityLayout, workspace: ws, sharded_since: since };
  await db.send(new PutCommand({ TableName: tableName(), Item: layout }));
}
