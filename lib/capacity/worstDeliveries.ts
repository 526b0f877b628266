import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { DELIVERY_SHARDS, ItemType, keys } from '#store/keys';
import { shardOf } from '#store/shards';
import { tableName } from '#store/table';
import { MAX_LOGGED_ATTEMPTS } from '#webhooks/entities';
import { shardOfDelivery } from '#webhooks/store/deliverySpread';

/**
 * The webhook's deliveries, failed after full attempt logs (kept beside each delivery: the first one's
 * are written, the others' would change no figure here), each with the longest answer a log keeps.
 */
export async function seedDeliveries(ws: string, webhookId: string, count: number): Promise<string> {
  const at = new Date().toISOString();
  const error = `connection to ${'h'.repeat(63)}.${'d'.repeat(63)}.example failed: connection timed out`;
  const ids: string[] = [];
  const base = Date.now() - 60_000;
  for (let i = 0; i < count; i++) {
    // Each id's hash names the shard of its turn (its tail chosen so): what a page reads of each shard is the same every run.
    let id = '';
    for (let tail = 0; ; tail++) {
      id = `msg_${(base + i).toString(16).padStart(12, '0')}${String(tail).padStart(20, '0')}`;
      if (shardOf(id, DELIVERY_SHARDS) === i % DELIVERY_SHARDS) break;
    }
    ids.push(id);
    const shard = await shardOfDelivery(id);
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookDelivery(ws, webhookId, id, shard),
          type: ItemType.webhookDelivery,
          ttl: Math.floor(Date.now() / 1000) + 3600,
          id,
          webhook_id: webhookId,
          workspace: ws,
          event_type: 'Project Updated',
          event_id: `evt-limits-${i}`,
          status: 'failed',
          attempts: MAX_LOGGED_ATTEMPTS,
          last_status_code: 500,
          last_error: error,
          last_response: '\u{1F600}'.repeat(1000),
          last_attempt_at: at,
          created_at: at,
        },
      }),
    );
  }
  for (let n = 0; n < MAX_LOGGED_ATTEMPTS; n++) {
    const attemptAt = new Date(Date.now() - 60_000 + n).toISOString();
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.deliveryAttempt(ws, webhookId, ids[0]!, attemptAt, 'automatic', await shardOfDelivery(ids[0]!)),
          type: ItemType.deliveryAttempt,
          ttl: Math.floor(Date.now() / 1000) + 3600,
          at: attemptAt,
          error,
          duration_ms: 10_000,
          trigger: 'automatic',
        },
      }),
    );
  }
  return ids[0]!;
}
