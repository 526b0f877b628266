import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord, WebhookRecord } from '#webhooks/entities';
import { db } from './client';
import { optStr } from './codec';
import { conditionally, isConditionFailure } from './errors';
import { ItemType, keys } from './keys';
import { queryAll } from './query';
import { decodeDelivery, decodeWebhook, webhooksRange } from './webhookItem';
import { tableName } from './table';

/** Every read and write of webhook items (in their workspace's collection) and of their deliveries (one collection per webhook). */

const DELIVERY_KEPT_SECONDS = 30 * 24 * 3600;

export async function readWebhooks(ws: string): Promise<WebhookRecord[]> {
  return (await queryAll(webhooksRange(ws))).map(decodeWebhook);
}

export async function readWebhook(ws: string, id: string): Promise<WebhookRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhook(ws, id), ConsistentRead: true }));
  return Item ? decodeWebhook(Item) : undefined;
}

export async function putNewWebhook(record: WebhookRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.webhook(record.workspace, record.id), type: ItemType.webhook, ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** SET and REMOVE clauses over named attributes, so any attribute name is safe in an expression. */
function setAndRemove(set: Record<string, unknown>, remove: readonly string[]) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(set).map(([attr, value], i) => {
    names[`#s${i}`] = attr;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = remove.map((attr, i) => {
    names[`#r${i}`] = attr;
    return `#r${i}`;
  });
  const expression = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim();
  return { expression, names, values };
}

/**
 * A user's change: only the attributes it changes are written, and only while the webhook is still
 * at the revision read (so a concurrent change is never written over: the caller reads again). The
 * new record, or undefined when it changed or went meanwhile.
 */
export async function rewriteWebhook(
  read: WebhookRecord,
  set: Partial<WebhookRecord>,
  remove: readonly (keyof WebhookRecord)[],
): Promise<WebhookRecord | undefined> {
  const { expression, names, values } = setAndRemove({ ...set, rev: read.rev + 1 }, remove);
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(read.workspace, read.id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK) AND #rev = :readRev',
        ExpressionAttributeNames: { ...names, '#rev': 'rev' },
        ExpressionAttributeValues: { ...values, ':readRev': read.rev },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeWebhook(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Deletes the webhook if it is still the revision read; false when it changed or went meanwhile. */
export function deleteWebhookItem(read: WebhookRecord): Promise<boolean> {
  return conditionally(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.webhook(read.workspace, read.id),
        ConditionExpression: 'attribute_exists(PK) AND #rev = :readRev',
        ExpressionAttributeNames: { '#rev': 'rev' },
        ExpressionAttributeValues: { ':readRev': read.rev },
      }),
    ),
  );
}

/**
 * A new secret, the current one kept as the previous until `previousExpiresAt`: one UpdateItem, whose
 * right-hand sides read the item as it was, so two rotations at once each keep the secret they replaced.
 */
export async function rotateWebhookSecret(ws: string, id: string, secret: string, previousExpiresAt: string, now: string) {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(ws, id),
        UpdateExpression: 'SET previous_secret = secret, previous_secret_expires_at = :expires, secret = :secret, updated_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':expires': previousExpiresAt, ':secret': secret, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeWebhook(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** The service's own bookkeeping of an endpoint's health (not a user's change: no revision). */
export const webhookHealth = {
  /** Marks the webhook failing from `now` unless it already is; the time it has been failing since. */
  async failing(ws: string, id: string, now: string): Promise<string | undefined> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(ws, id),
          UpdateExpression: 'SET failing_since = if_not_exists(failing_since, :now)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return optStr(Attributes ?? {}, 'failing_since');
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  },
  /** A success: no longer failing (written only when it was). */
  healthy: (ws: string, id: string) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(ws, id),
          UpdateExpression: 'REMOVE failing_since',
          ConditionExpression: 'attribute_exists(failing_since)',
        }),
      ),
    ),
  /** Turns it off with the reason, if it is still active and still failing since `since`. */
  deactivate: (ws: string, id: string, since: string, reason: string, now: string) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(ws, id),
          UpdateExpression: 'SET active = :false, deactivated_reason = :reason, updated_at = :now',
          ConditionExpression: 'active = :true AND failing_since = :since',
          ExpressionAttributeValues: { ':false': false, ':true': true, ':reason': reason, ':since': since, ':now': now },
        }),
      ),
    ),
};

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

/**
 * One attempt's outcome: the attempt counted (ADD, so concurrent attempts both count; unless `counted` is false), the fields
 * given set and those named removed. What schedules or ends a delivery (`next_attempt_at`, status
 * `failed`) is written only while it is not delivered: a delivery once delivered stays delivered.
 * The delivery after the write, or undefined when that held it back.
 */
export async function recordAttempt(
  d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>,
  set: Partial<DeliveryRecord>,
  remove: readonly (keyof DeliveryRecord)[],
  /** False for a delivery ended unsent (its webhook deleted or turned off): no attempt to count. */
  counted = true,
): Promise<DeliveryRecord | undefined> {
  const { expression, names, values } = setAndRemove(set, remove);
  const guarded = set.status === 'failed' || set.next_attempt_at !== undefined;
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: counted ? `${expression} ADD attempts :one` : expression,
        ConditionExpression: guarded ? 'attribute_exists(PK) AND #status <> :delivered' : 'attribute_exists(PK)',
        ExpressionAttributeNames: { ...names, ...(guarded ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: { ...values, ...(counted ? { ':one': 1 } : {}), ...(guarded ? { ':delivered': 'delivered' } : {}) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeDelivery(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
