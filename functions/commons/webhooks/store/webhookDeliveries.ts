import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AttemptLogEntry, type DeliveryRecord, MAX_LOGGED_ATTEMPTS } from '../entities';
import { db } from '#store/client';
import { conditionally, isConditionFailure, unlessConditionFails } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { shardOfDelivery } from './deliverySpread';
import { decodeDelivery, setAndRemove } from './webhookItem';

/**
 * Every read and write of a webhook's deliveries (one collection per webhook, over DELIVERY_SHARDS partitions by
 * delivery (deliveryLayout.ts), newest first, each kept 30 days). A delivery's payload, unless small, is an item of
 * its own beside it (keys.deliveryPayload): the log, a recovery and the attempts' records read and write the
 * delivery's small item, a send reads the payload.
 */

const DELIVERY_KEPT_SECONDS = 30 * 24 * 3600;
/** A payload outlives its delivery by a day: expiry removes items late and in any order, and a delivery never loses its payload. */
const PAYLOAD_KEPT_SECONDS = DELIVERY_KEPT_SECONDS + 24 * 3600;

/**
 * Payloads up to this many bytes stay on their delivery's item: it still costs one write unit, however
 * often its attempts rewrite it, and a log page of them reads little. A larger one goes to its own item.
 */
const INLINE_PAYLOAD_BYTES = 512;

/**
 * Writes a new delivery unless one with its id exists (a redelivered event); the one stored either way.
 * A payload kept apart goes first (unless there already: the same event's, byte for byte), so no delivery
 * is ever without one; a payload whose delivery was never written expires unread.
 */
export async function putNewDelivery(record: DeliveryRecord): Promise<{ created: boolean; delivery: DeliveryRecord }> {
  const { payload, ...small } = record;
  const shard = await shardOfDelivery(record.id, true);
  const key = keys.webhookDelivery(record.workspace, record.webhook_id, record.id, shard);
  const made = Math.floor(Date.parse(record.created_at) / 1000);
  if (payload === undefined) throw new Error(`delivery ${record.id} has no payload to store`);
  const inline = Buffer.byteLength(payload) <= INLINE_PAYLOAD_BYTES;
  const delivery = inline ? record : small;
  if (!inline)
    await unlessConditionFails(() =>
      db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.deliveryPayload(record.workspace, record.webhook_id, record.id, shard),
            type: ItemType.deliveryPayload,
            ttl: made + PAYLOAD_KEPT_SECONDS,
            payload,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          type: ItemType.webhookDelivery,
          ttl: made + DELIVERY_KEPT_SECONDS,
          due_shard: keys.dueShard(record.id),
          ...delivery,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { created: true, delivery: record };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await readDeliveryAt(key);
    if (!existing) throw error;
    return { created: false, delivery: existing };
  }
}

export async function readDelivery(ws: string, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
  return readDeliveryAt(keys.webhookDelivery(ws, webhookId, id, await shardOfDelivery(id)));
}

async function readDeliveryAt(key: { PK: string; SK: string }): Promise<DeliveryRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item ? decodeDelivery(Item) : undefined;
}

/** The body a delivery sends: on its record when just made (or stored before payloads moved), else its own item's. */
export async function deliveryPayload(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id' | 'payload'>): Promise<string> {
  if (d.payload !== undefined) return d.payload;
  const key = keys.deliveryPayload(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id));
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  if (typeof Item?.payload !== 'string') throw new Error(`delivery ${d.id} of webhook ${d.webhook_id} has no payload`);
  return Item.payload;
}

/** How an outcome counts: an automatic attempt (the schedule moves on), one made on request, or none (ended unsent). */
export type AttemptKind = 'automatic' | 'manual' | 'none';

/**
 * One attempt's outcome: the attempt counted (ADD, so concurrent attempts both count), the fields
 * given set and those named removed, and an automatic attempt's claim released. What schedules or
 * ends a delivery (`next_attempt_at`, status `failed`) is written only while it is not delivered: a
 * delivery once delivered stays delivered. The delivery after the write, or undefined when that held
 * it back (or found it recorded already: the same attempt's write, repeated). `logged`, the attempt as
 * the delivery's log keeps it, is an item of its own written first (keyed by its time and trigger: a
 * repeated write is the same item; an attempt made is logged even when the record's condition holds it
 * back), so the delivery stays small however many attempts it has; `heldUntil`, the hold of an
 * automatic attempt, is required by the write (which lets go of it).
 */
export async function recordAttempt(
  d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'> & { attempts?: number; created_at?: string },
  set: Partial<DeliveryRecord>,
  remove: readonly (keyof DeliveryRecord)[],
  kind: AttemptKind,
  opts: { logged?: AttemptLogEntry; heldUntil?: string } = {},
): Promise<DeliveryRecord | undefined> {
  const { logged, heldUntil } = opts;
  // An automatic attempt's record lets go of its hold, and of the sweeps' count (it was not lost).
  const sets = setAndRemove(set, kind === 'manual' ? remove : [...remove, 'claimed_until', 'requeues']);
  // The attempt joins the delivery's log, while the log has room (the attempts as read: the first MAX_LOGGED_ATTEMPTS).
  if (logged !== undefined && (d.attempts ?? 0) < MAX_LOGGED_ATTEMPTS) await logAttempt(d, logged);
  // A schedule set puts the delivery in the due index (one made before the index has no shard yet).
  const due = set.next_attempt_at !== undefined;
  const extra = due ? ['#shard = if_not_exists(#shard, :shard)'] : [];
  const guarded = set.status === 'failed' || due;
  const add = { automatic: ' ADD attempts :one, auto_attempts :one', manual: ' ADD attempts :one', none: '' }[kind];
  // An attempt is recorded once: under its hold (the first write lets go of it), or, made on request, by
  // its time. A write repeated after its answer was lost changes nothing.
  const held = heldUntil !== undefined;
  const once = !held && add !== '' && set.last_attempt_at !== undefined;
  const conditions = [
    'attribute_exists(PK)',
    ...(guarded ? ['#status <> :delivered'] : []),
    ...(held ? ['claimed_until = :held'] : []),
    ...(once ? ['(attribute_not_exists(#at) OR #at <> :at)'] : []),
  ];
  const key = keys.webhookDelivery(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id));
  return unlessConditionFails(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `${withSets(sets.expression, extra)}${add}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: {
          ...sets.names,
          ...(due ? { '#shard': 'due_shard' } : {}),
          ...(guarded ? { '#status': 'status' } : {}),
          ...(once ? { '#at': 'last_attempt_at' } : {}),
        },
        ExpressionAttributeValues: {
          ...sets.values,
          ...(due ? { ':shard': keys.dueShard(d.id) } : {}),
          ...(add ? { ':one': 1 } : {}),
          ...(guarded ? { ':delivered': 'delivered' } : {}),
          ...(once ? { ':at': set.last_attempt_at } : {}),
          ...(held ? { ':held': heldUntil } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeDelivery(Attributes) : undefined;
  });
}

/** An attempt as the delivery's log keeps it: an item beside the delivery, expiring a day after it. */
async function logAttempt(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'> & { created_at?: string }, entry: AttemptLogEntry) {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.deliveryAttempt(d.workspace, d.webhook_id, d.id, entry.at, entry.trigger, await shardOfDelivery(d.id)),
        type: ItemType.deliveryAttempt,
        ttl: Math.floor((d.created_at ? Date.parse(d.created_at) : Date.now()) / 1000) + PAYLOAD_KEPT_SECONDS,
        ...entry,
      },
    }),
  );
}

/** A delivery's attempt log, oldest first: its items (and the log a delivery stored before kept on itself). */
export async function readAttemptLog(d: DeliveryRecord): Promise<AttemptLogEntry[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.webhookDeliveries(d.workspace, d.webhook_id, await shardOfDelivery(d.id)),
        ':prefix': keys.deliveryAttemptPrefix(d.id),
      },
      ConsistentRead: true,
      Limit: MAX_LOGGED_ATTEMPTS,
    }),
  );
  const apart = Items.map(({ at, status_code, error, duration_ms, trigger }) => ({
    at,
    ...(status_code !== undefined ? { status_code } : {}),
    ...(error !== undefined ? { error } : {}),
    duration_ms,
    trigger,
  })) as AttemptLogEntry[];
  return [...(d.attempt_log ?? []), ...apart].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).slice(0, MAX_LOGGED_ATTEMPTS);
}

/** An update expression with more assignments in its SET clause (or a SET clause of them). */
function withSets(expression: string, assignments: string[]): string {
  if (assignments.length === 0) return expression;
  const more = assignments.join(', ');
  return expression.startsWith('SET ') ? expression.replace('SET ', `SET ${more}, `) : `SET ${more} ${expression}`.trim();
}

/**
 * Takes the automatic attempt due at `due` for one holder until `until`: only while the delivery is
 * pending, due then, and not held by another (or held past its time: a holder that crashed). False
 * when a duplicate message, a later schedule or a finished delivery got there first.
 */
export async function claimDelivery(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>, due: string, now: string, until: string) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id)),
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
export async function releaseClaim(d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'>, until: string) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id, await shardOfDelivery(d.id)),
        UpdateExpression: 'REMOVE claimed_until',
        ConditionExpression: 'claimed_until = :until',
        ExpressionAttributeValues: { ':until': until },
      }),
    ),
  );
}
