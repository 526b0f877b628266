import { type AttemptLogEntry, DELIVERY_STATUSES, type DeliveryRecord, type PreviousSecret, type WebhookRecord } from '../entities';
import { bool, num, oneOf, optNum, optStr, str, strings } from '#store/codec';
import { DELIVERY_SHARDS, keys } from '#store/keys';
import { asSealed } from '#store/sealing';
import type { Item, KeyRange } from '#store/query';

/** The webhook and delivery items as the table keeps them, decoded back into the entities, and the ranges they are listed from. */

/** The optional attributes of `values` that are present (absent ones stay absent, never `undefined`). */
const present = <T>(values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * The secrets rotations replaced: the list, or (a webhook last rotated before there was a list) the one
 * previous secret it kept, with its expiry; undefined when there are none.
 */
function previousSecrets(item: Item): PreviousSecret[] | undefined {
  if (Array.isArray(item.previous_secrets)) {
    return (item.previous_secrets as Item[]).map((p) => ({
      secret: asSealed(str(p, 'secret', item)),
      expires_at: str(p, 'expires_at', item),
    }));
  }
  const secret = optStr(item, 'previous_secret');
  const expires = optStr(item, 'previous_secret_expires_at');
  return secret && expires ? [{ secret: asSealed(secret), expires_at: expires }] : undefined;
}

export function decodeWebhook(item: Item): WebhookRecord {
  const optional = {
    project_slug: optStr(item, 'project_slug'),
    previous_secrets: previousSecrets(item),
    failing_since: optStr(item, 'failing_since'),
    last_failure_at: optStr(item, 'last_failure_at'),
    deactivated_reason: optStr(item, 'deactivated_reason'),
    url_set_at: optStr(item, 'url_set_at'),
  };
  return {
    id: str(item, 'id'),
    workspace: str(item, 'workspace'),
    url: str(item, 'url'),
    events: strings(item, 'events'),
    description: str(item, 'description'),
    active: bool(item, 'active'),
    secret: asSealed(str(item, 'secret')),
    created_at: str(item, 'created_at'),
    updated_at: str(item, 'updated_at'),
    rev: num(item, 'rev'),
    ...present<WebhookRecord>(optional),
  };
}

export const webhooksRange = (ws: string): KeyRange => ({ partition: keys.webhookCollection(ws), sortPrefix: keys.webhookSkPrefix });

export function decodeDelivery(item: Item): DeliveryRecord {
  const optional = {
    last_status_code: optNum(item, 'last_status_code'),
    last_error: optStr(item, 'last_error'),
    last_response: optStr(item, 'last_response'),
    last_attempt_at: optStr(item, 'last_attempt_at'),
    next_attempt_at: optStr(item, 'next_attempt_at'),
    delivered_at: optStr(item, 'delivered_at'),
    auto_attempts: optNum(item, 'auto_attempts'),
    requeues: optNum(item, 'requeues'),
    claimed_until: optStr(item, 'claimed_until'),
    superseded: item.superseded instanceof Set ? [...(item.superseded as Set<string>)] : undefined,
    attempt_log: Array.isArray(item.attempt_log) ? (item.attempt_log as AttemptLogEntry[]) : undefined,
    payload: optStr(item, 'payload'),
  };
  return {
    id: str(item, 'id'),
    webhook_id: str(item, 'webhook_id'),
    workspace: str(item, 'workspace'),
    event_type: str(item, 'event_type'),
    event_id: str(item, 'event_id'),
    status: oneOf(item, 'status', DELIVERY_STATUSES),
    attempts: num(item, 'attempts'),
    created_at: str(item, 'created_at'),
    ...present<DeliveryRecord>(optional),
  };
}

/** A webhook's deliveries, newest first: the range of its shard 0, read with every other shard (keys.webhookDeliveryShards). */
export const deliveriesRange = (ws: string, webhookId: string): KeyRange => ({
  partition: keys.webhookDeliveries(ws, webhookId),
  sortPrefix: keys.webhookDeliverySkPrefix,
  descending: true,
});

/**
 * What one page of a webhook's deliveries reads at most, over its shards: unfiltered, what the page needs (about a
 * read per shard); filtered by status, 5 rounds of 400 deliveries evaluated (as one partition's 5 reads did before
 * shards), and a short page with a cursor after them.
 */
export const DELIVERY_PAGE_BUDGET = {
  unfiltered: { calls: 8 * DELIVERY_SHARDS, units: Number.POSITIVE_INFINITY, filteredRound: 0 },
  filtered: { calls: 5 * DELIVERY_SHARDS, units: 256, filteredRound: 400 },
};

/** SET and REMOVE clauses over named attributes, so any attribute name is safe in an expression. */
export function setAndRemove(set: Record<string, unknown>, remove: readonly string[]) {
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
