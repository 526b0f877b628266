import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord } from '../entities';
import { db } from '#store/client';
import { conditionally } from '#store/errors';
import { DELIVERY_SHARDS, keys } from '#store/keys';
import { type MergeBudget, readMerged } from '#store/merged';
import { shardOfDelivery } from './deliverySpread';
import { TABLE, tableName } from '#store/table';

/**
 * The reads and writes that bring deliveries forward again: a recovery's range of a webhook's
 * deliveries, the sweeper's due index, and the new schedule either writes.
 */

/** What a recovery needs of a delivery to schedule it again. */
export type Recoverable = Pick<DeliveryRecord, 'id' | 'workspace' | 'webhook_id' | 'status' | 'next_attempt_at'>;

/**
 * What one call of a recovery reads at most, over the shards of the webhook's deliveries: rounds of 2,000 deliveries
 * evaluated, 3 reads a shard, and 1,280 read units (10 MB read eventually consistent, 5 MB strongly: one partition's
 * 10 reads of up to 1 MB did about as much before shards).
 */
const RECOVERY_BUDGET: MergeBudget = { calls: 3 * DELIVERY_SHARDS, units: 1_280, filteredRound: 2_000 };

/**
 * The webhook's deliveries of events since `sinceMs` (a delivery's id begins with its event's time: the
 * range is one of keys), oldest first, that a recovery takes: not delivered, not a ping, and pending
 * only while a retry is still to come or when overdue by `overdueMs` (its message lost); with
 * `waitingOnly` (a breaker's probe and release), not failed, nor held by an attempt right now. At most
 * `limit`, from after the delivery `after` when given; `more` when the range holds more than was read or
 * taken, and `next`, the delivery a further call goes on after.
 */
export async function recoverableSince(
  ws: string,
  webhookId: string,
  sinceMs: number,
  opts: {
    limit: number;
    now: number;
    overdueMs: number;
    ping: string;
    waitingOnly?: boolean;
    after?: string;
    /** Only deliveries made (`created_at`) at or after this time. */
    madeSince?: string;
    /** Read eventually consistent (half the read units): where a delivery changed in the last second may be read as it was. */
    eventually?: boolean;
  },
): Promise<{ deliveries: Recoverable[]; more: boolean; next?: string }> {
  const now = new Date(opts.now).toISOString();
  // Waiting: a retry (or a park) to come, or overdue (its message lost); a recovery takes failed ones too,
  // a breaker's probe and release none an attempt holds right now.
  const waiting = '#status = :pending AND (next_attempt_at > :now OR next_attempt_at < :overdue)';
  const filter = opts.waitingOnly
    ? `${waiting} AND (attribute_not_exists(claimed_until) OR claimed_until < :now)`
    : `(#status = :failed OR ${waiting})`;
  const prefix = keys.webhookDeliverySkPrefix;
  const range = {
    input: {
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
      FilterExpression: `event_type <> :ping AND ${filter}${opts.madeSince === undefined ? '' : ' AND created_at >= :madeSince'}`,
      ProjectionExpression: '#sk, id, workspace, webhook_id, #status, next_attempt_at',
      ExpressionAttributeNames: { '#pk': TABLE.partitionKey, '#sk': TABLE.sortKey, '#status': 'status' },
      ExpressionAttributeValues: {
        ':lo': `${prefix}${keys.deliveryIdPrefix(sinceMs)}`,
        ':hi': `${prefix}~`,
        ':ping': opts.ping,
        ...(opts.waitingOnly ? {} : { ':failed': 'failed' }),
        ':pending': 'pending',
        ...(opts.madeSince === undefined ? {} : { ':madeSince': opts.madeSince }),
        ':now': now,
        ':overdue': new Date(opts.now - opts.overdueMs).toISOString(),
      },
      ConsistentRead: opts.eventually !== true,
    },
    // Every shard of the webhook's deliveries, merged in key order (their ids' order).
    partitions: keys.webhookDeliveryShards(ws, webhookId),
    descending: false,
    filtering: true,
    budget: RECOVERY_BUDGET,
  };
  const page = await readMerged(range, opts.limit, opts.after === undefined ? undefined : `${prefix}${opts.after}`);
  const taken = page.items.map(({ [TABLE.sortKey]: _sk, ...d }) => d as Recoverable);
  // Where a further call goes on: after the last delivery taken, or after the last key read.
  const next = page.next?.slice(prefix.length);
  return { deliveries: taken, more: next !== undefined, ...(next !== undefined ? { next } : {}) };
}

/**
 * Schedules a delivery's next automatic attempt at `due` again (a recovery), unless it was delivered
 * or an attempt holds it now; `supersedes`, the schedule it replaces, joins the delivery's superseded
 * schedules (a retry message due then sends nothing). False when it was left.
 */
export async function rescheduleDelivery(d: Recoverable, due: string, now: string, supersedes: string | undefined, sweptUnder?: number) {
  const swept = sweptUnder !== undefined;
  const adds = [...(supersedes ? ['superseded :stale'] : []), ...(swept ? ['requeues :one'] : [])];
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id)),
        // In the due index again (a delivery made before it has no shard yet); a sweep's re-queue is counted.
        UpdateExpression: `SET #status = :pending, next_attempt_at = :due, due_shard = if_not_exists(due_shard, :shard)${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
        ConditionExpression: `#status = :was AND (attribute_not_exists(claimed_until) OR claimed_until < :now)${supersedes ? ' AND next_attempt_at = :old' : ''}${swept ? ' AND (attribute_not_exists(requeues) OR requeues < :max)' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':due': due,
          ':was': d.status,
          ':now': now,
          ':shard': keys.dueShard(d.id),
          ...(supersedes ? { ':stale': new Set([supersedes]), ':old': supersedes } : {}),
          ...(swept ? { ':one': 1, ':max': sweptUnder } : {}),
        },
      }),
    ),
  );
}

/**
 * Ends a delivery the sweeper found lost `max` times in a row already (its attempts kept failing before
 * they were recorded): failed, with why, unless it moved on since it was read or an attempt holds it.
 */
export async function endLostDelivery(d: DueDelivery, now: string, why: string, max: number) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id)),
        UpdateExpression: 'SET #status = :failed, last_error = :why REMOVE next_attempt_at',
        ConditionExpression:
          '#status = :pending AND next_attempt_at = :seen AND (attribute_not_exists(claimed_until) OR claimed_until < :now) AND requeues >= :max',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':why': why,
          ':pending': 'pending',
          ':seen': d.next_attempt_at,
          ':now': now,
          ':max': max,
        },
      }),
    ),
  );
}

/** A delivery as the due index carries it: its names, and when its attempt was due. */
export type DueDelivery = Pick<DeliveryRecord, 'id' | 'workspace' | 'webhook_id'> & { next_attempt_at: string };

/** Entries of the due index one read takes at most, so that a sweep checks its time between them. */
const DUE_PAGE = 100;

/**
 * One page of a shard of the due index (keys.dueShards): deliveries whose automatic attempt was due
 * before `before`, oldest first, and where the next page starts.
 */
export async function dueBefore(
  shard: string,
  before: string,
  start?: Record<string, unknown>,
): Promise<{ deliveries: DueDelivery[]; next?: Record<string, unknown> }> {
  const index = TABLE.indexes.byDue;
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.name,
      KeyConditionExpression: '#shard = :shard AND #due < :before',
      ExpressionAttributeNames: { '#shard': index.partitionKey, '#due': index.sortKey },
      ExpressionAttributeValues: { ':shard': shard, ':before': before },
      ExclusiveStartKey: start,
      Limit: DUE_PAGE,
    }),
  );
  return { deliveries: (out.Items ?? []) as DueDelivery[], next: out.LastEvaluatedKey };
}
