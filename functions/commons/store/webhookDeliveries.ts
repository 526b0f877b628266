import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord } from '#webhooks/entities';
import { db } from './client';
import { conditionally, isConditionFailure, unlessConditionFails } from './errors';
import { ItemType, keys } from './keys';
import { tableName } from './table';
import { decodeDelivery, setAndRemove } from './webhookItem';

/** Every read and write of a webhook's deliveries (one collection per webhook, newest first, each kept 30 days). */

const DELIVERY_KEPT_SECONDS = 30 * 24 * 3600;

/** Writes a new delivery unless one with its id exists (a redelivered event); the one stored either way. */
export async function putNewDelivery(record: DeliveryRecord): Promise<{ created: boolean; delivery: DeliveryRecord }> {
  const key = keys.webhookDelivery(record.workspace, record.webhook_id, record.id);
  const ttl = Math.floor(Date.parse(record.created_at) / 1000) + DELIVERY_KEPT_SECONDS;
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, type: ItemType.webhookDelivery, ttl, ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { created: true, delivery: record };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await readDelivery(record.workspace, record.webhook_id, record.id);
    if (!existing) throw error;
    return { created: false, delivery: existing };
  }
}

export async function readDelivery(ws: string, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: keys.webhookDelivery(ws, webhookId, id), ConsistentRead: true }),
  );
  return Item ? decodeDelivery(Item) : undefined;
}

/** How an outcome counts: an automatic attempt (the schedule moves on), one made on request, or none (ended unsent). */
export type AttemptKind = 'automatic' | 'manual' | 'none';

/**
 * One attempt's outcome: the attempt counted (ADD, so concurrent attempts both count), the fields
 * given set and those named removed, and an automatic attempt's claim released. What schedules or
 * ends a delivery (`next_attempt_at`, status `failed`) is written only while it is not delivered: a
 * delivery once delivered stays delivered. The delivery after the write, or undefined when that held
 * it back.
 */
export function recordAttempt(
  d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>,
  set: Partial<DeliveryRecord>,
  remove: readonly (keyof DeliveryRecord)[],
  kind: AttemptKind,
): Promise<DeliveryRecord | undefined> {
  const { expression, names, values } = setAndRemove(set, kind === 'manual' ? remove : [...remove, 'claimed_until']);
  const guarded = set.status === 'failed' || set.next_attempt_at !== undefined;
  const add = { automatic: ' ADD attempts :one, auto_attempts :one', manual: ' ADD attempts :one', none: '' }[kind];
  return unlessConditionFails(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: `${expression}${add}`,
        ConditionExpression: guarded ? 'attribute_exists(PK) AND #status <> :delivered' : 'attribute_exists(PK)',
        ExpressionAttributeNames: { ...names, ...(guarded ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: { ...values, ...(add ? { ':one': 1 } : {}), ...(guarded ? { ':delivered': 'delivered' } : {}) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeDelivery(Attributes) : undefined;
  });
}

/**
 * Takes the automatic attempt due at `due` for one holder until `until`: only while the delivery is
 * pending, due then, and not held by another (or held past its time: a holder that crashed). False
 * when a duplicate message, a later schedule or a finished delivery got there first.
 */
export function claimDelivery(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>, due: string, now: string, until: string) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: 'SET claimed_until = :until',
        ConditionExpression:
          '#status = :pending AND next_attempt_at = :due AND (attribute_not_exists(claimed_until) OR claimed_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':until': until, ':pending': 'pending', ':due': due, ':now': now },
      }),
    ),
  );
}

/** Lets go of a claim this holder made (an attempt that failed before recording): the message's redelivery takes it up at once. */
export function releaseClaim(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>, until: string) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: 'REMOVE claimed_until',
        ConditionExpression: 'claimed_until = :until',
        ExpressionAttributeValues: { ':until': until },
      }),
    ),
  );
}

/**
 * The webhook's deliveries of events since `sinceMs`, oldest first, at most `limit` (a delivery's id
 * begins with its event's time: the range is one of keys), and whether more follow.
 */
export async function deliveriesSince(ws: string, webhookId: string, sinceMs: number, limit: number) {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: {
        ':pk': keys.webhookDeliveries(ws, webhookId),
        ':lo': `${keys.webhookDeliverySkPrefix}msg_${Math.max(0, sinceMs).toString(16).padStart(12, '0')}`,
        ':hi': `${keys.webhookDeliverySkPrefix}msg_~`,
      },
      ConsistentRead: true,
      Limit: limit + 1,
    }),
  );
  return { deliveries: Items.slice(0, limit).map(decodeDelivery), more: Items.length > limit };
}

/**
 * Schedules a delivery's next automatic attempt at `due` again (a recovery), unless it was delivered
 * or an attempt holds it now; `supersedes` marks the schedule it replaces stale. False when it was left.
 */
export function rescheduleDelivery(d: DeliveryRecord, due: string, now: string, supersedes: string | undefined) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: `SET #status = :pending, next_attempt_at = :due${supersedes ? ', superseded_until = :stale' : ''}`,
        ConditionExpression: `#status = :was AND (attribute_not_exists(claimed_until) OR claimed_until < :now)${supersedes ? ' AND next_attempt_at = :stale' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':due': due,
          ':was': d.status,
          ':now': now,
          ...(supersedes ? { ':stale': supersedes } : {}),
        },
      }),
    ),
  );
}
