import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AttemptLogEntry, type DeliveryRecord, MAX_LOGGED_ATTEMPTS } from '#webhooks/entities';
import { db } from './client';
import { conditionally, isConditionFailure, unlessConditionFails } from './errors';
import { ItemType, keys } from './keys';
import { TABLE, tableName } from './table';
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
        Item: { ...key, type: ItemType.webhookDelivery, ttl, due_shard: keys.dueShard(record.id), ...record },
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
 * it back (or found it recorded already: the same attempt's write, repeated). `logged`, the attempt as
 * the delivery's log keeps it, is appended to the log in the same write.
 */
export function recordAttempt(
  d: Pick<DeliveryRecord, 'workspace' | 'webhook_id' | 'id'> & { attempts?: number },
  set: Partial<DeliveryRecord>,
  remove: readonly (keyof DeliveryRecord)[],
  kind: AttemptKind,
  logged?: AttemptLogEntry,
): Promise<DeliveryRecord | undefined> {
  const sets = setAndRemove(set, kind === 'manual' ? remove : [...remove, 'claimed_until']);
  // The attempt joins the delivery's log, while the log has room (the attempts as read: the first MAX_LOGGED_ATTEMPTS).
  const log = logged !== undefined && (d.attempts ?? 0) < MAX_LOGGED_ATTEMPTS;
  const expression = log ? withLog(sets.expression) : sets.expression;
  const { names, values } = log
    ? { names: { ...sets.names, '#log': 'attempt_log' }, values: { ...sets.values, ':entry': [logged], ':empty': [] } }
    : sets;
  const guarded = set.status === 'failed' || set.next_attempt_at !== undefined;
  const add = { automatic: ' ADD attempts :one, auto_attempts :one', manual: ' ADD attempts :one', none: '' }[kind];
  // An attempt is recorded once, by its time: a write repeated after its answer was lost changes nothing.
  const once = add !== '' && set.last_attempt_at !== undefined;
  const conditions = [
    'attribute_exists(PK)',
    ...(guarded ? ['#status <> :delivered'] : []),
    ...(once ? ['(attribute_not_exists(#at) OR #at <> :at)'] : []),
  ];
  return unlessConditionFails(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: `${expression}${add}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { ...names, ...(guarded ? { '#status': 'status' } : {}), ...(once ? { '#at': 'last_attempt_at' } : {}) },
        ExpressionAttributeValues: {
          ...values,
          ...(add ? { ':one': 1 } : {}),
          ...(guarded ? { ':delivered': 'delivered' } : {}),
          ...(once ? { ':at': set.last_attempt_at } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeDelivery(Attributes) : undefined;
  });
}

/** An update expression with the attempt appended to the log (its SET clause, or a new one). */
function withLog(expression: string): string {
  const append = '#log = list_append(if_not_exists(#log, :empty), :entry)';
  return expression.startsWith('SET ') ? expression.replace('SET ', `SET ${append}, `) : `SET ${append} ${expression}`.trim();
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

/** What a recovery needs of a delivery to schedule it again. */
export type Recoverable = Pick<DeliveryRecord, 'id' | 'workspace' | 'webhook_id' | 'status' | 'next_attempt_at'>;

/** Reads of the deliveries' collection one recovery makes at most (each up to 1 MB of keys and a few fields). */
const MAX_READS = 10;

/**
 * The webhook's deliveries of events since `sinceMs` (a delivery's id begins with its event's time: the
 * range is one of keys), oldest first, that a recovery takes: not delivered, not a ping, and pending
 * only while a retry is still to come or when overdue by `overdueMs` (its message lost). At most
 * `limit`; `more` when the range holds more than was read or taken.
 */
export async function recoverableSince(
  ws: string,
  webhookId: string,
  sinceMs: number,
  opts: { limit: number; now: number; overdueMs: number; ping: string },
): Promise<{ deliveries: Recoverable[]; more: boolean }> {
  const deliveries: Recoverable[] = [];
  let start: Record<string, unknown> | undefined;
  for (let reads = 0; reads < MAX_READS && deliveries.length <= opts.limit; reads++) {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
        FilterExpression:
          'event_type <> :ping AND (#status = :failed OR (#status = :pending AND (next_attempt_at > :now OR next_attempt_at < :overdue)))',
        ProjectionExpression: 'id, workspace, webhook_id, #status, next_attempt_at',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': keys.webhookDeliveries(ws, webhookId),
          ':lo': `${keys.webhookDeliverySkPrefix}${keys.deliveryIdPrefix(sinceMs)}`,
          ':hi': `${keys.webhookDeliverySkPrefix}~`,
          ':ping': opts.ping,
          ':failed': 'failed',
          ':pending': 'pending',
          ':now': new Date(opts.now).toISOString(),
          ':overdue': new Date(opts.now - opts.overdueMs).toISOString(),
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    deliveries.push(...((out.Items ?? []) as Recoverable[]));
    start = out.LastEvaluatedKey;
    if (!start) break;
  }
  return { deliveries: deliveries.slice(0, opts.limit), more: deliveries.length > opts.limit || start !== undefined };
}

/**
 * Schedules a delivery's next automatic attempt at `due` again (a recovery), unless it was delivered
 * or an attempt holds it now; `supersedes`, the schedule it replaces, joins the delivery's superseded
 * schedules (a retry message due then sends nothing). False when it was left.
 */
export function rescheduleDelivery(d: Recoverable, due: string, now: string, supersedes: string | undefined) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.workspace, d.webhook_id, d.id),
        UpdateExpression: `SET #status = :pending, next_attempt_at = :due${supersedes ? ' ADD superseded :stale' : ''}`,
        ConditionExpression: `#status = :was AND (attribute_not_exists(claimed_until) OR claimed_until < :now)${supersedes ? ' AND next_attempt_at = :old' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':due': due,
          ':was': d.status,
          ':now': now,
          ...(supersedes ? { ':stale': new Set([supersedes]), ':old': supersedes } : {}),
        },
      }),
    ),
  );
}

/** A delivery as the due index carries it: its names and when its attempt was due. */
export type DueDelivery = Pick<DeliveryRecord, 'id' | 'workspace' | 'webhook_id'> & { next_attempt_at: string };

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
    }),
  );
  return { deliveries: (out.Items ?? []) as DueDelivery[], next: out.LastEvaluatedKey };
}
