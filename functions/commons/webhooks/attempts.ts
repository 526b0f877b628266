import { RETRY, untilWritten } from '#store/retry';
import { deliveryPayload, recordAttempt } from '#webhooks/store/webhookDeliveries';
import { webhookHealth } from '#webhooks/store/webhookHealth';
import { targetPolicy } from './addresses';
import { runFreshForMs } from './breaker';
import type { AttemptLogEntry, DeliveryRecord, WebhookRecord } from './entities';
import { sendWebhook, type SendResult } from './send';
import { deliverySettings } from './settings';
import { signedHeaders } from './signing';
import { signingSecrets } from './subscriptions';

/** One attempt of one delivery: signed, sent with the request-forgery rules, and its outcome recorded. */

const USER_AGENT = 'project-label-service-webhooks/1.0 (+https://project-label-service.dev/docs/webhooks)';

export interface Attempt {
  result: SendResult;
  ok: boolean;
  at: string;
}

/** Sends the delivery's payload to the webhook now, signed by its secrets in effect, with a fresh timestamp. */
export async function sendAttempt(delivery: DeliveryRecord, webhook: WebhookRecord): Promise<Attempt> {
  const payload = await deliveryPayload(delivery);
  const now = Date.now();
  const headers = {
    ...signedHeaders(await signingSecrets(webhook, now), delivery.id, Math.floor(now / 1000), payload),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
  };
  const result = await sendWebhook(webhook.url, headers, payload, {
    policy: targetPolicy(),
    timeoutMs: deliverySettings().timeoutMs,
  });
  const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
  return { result, ok, at: new Date(now).toISOString() };
}

/** The outcome fields of an attempt (the attempt itself is counted by recordAttempt), and its entry of the delivery's log. */
export function outcomeOf({ result, ok, at }: Attempt, trigger: AttemptLogEntry['trigger']) {
  const logged: AttemptLogEntry = {
    at,
    ...(result.status !== undefined ? { status_code: result.status } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
    duration_ms: result.durationMs,
    trigger,
  };
  const set: Partial<DeliveryRecord> = {
    last_attempt_at: at,
    ...(result.status !== undefined ? { last_status_code: result.status } : {}),
    ...(result.error !== undefined ? { last_error: result.error } : {}),
    ...(result.response !== undefined ? { last_response: result.response } : {}),
    ...(ok ? { status: 'delivered' as const, delivered_at: at } : {}),
  };
  const remove: (keyof DeliveryRecord)[] = [
    ...(result.status === undefined ? (['last_status_code'] as const) : []),
    ...(result.error === undefined ? (['last_error'] as const) : []),
    ...(result.response === undefined ? (['last_response'] as const) : []),
    ...(ok ? (['next_attempt_at'] as const) : []),
  ];
  return { set, remove, logged };
}

/**
 * An attempt made on request (a redelivery, a ping): recorded without touching the automatic schedule.
 * `only` (a ping): the delivery's one attempt, so a failure fails it.
 */
export async function attemptNow(delivery: DeliveryRecord, webhook: WebhookRecord, only = false) {
  const attempt = await sendAttempt(delivery, webhook);
  const { set, remove, logged } = outcomeOf(attempt, 'manual');
  if (only && !attempt.ok) set.status = 'failed';
  // A ping is never scheduled: no next_attempt_at to remove (nor its entry of the due index to write).
  const removed = only ? remove.filter((name) => name !== 'next_attempt_at') : remove;
  const recorded = await settleAttempt(webhook, attempt, () => recordAttempt(delivery, set, removed, 'manual', { logged }), true);
  return { attempt, delivery: recorded ?? { ...delivery, attempts: delivery.attempts + 1 } };
}

/**
 * Writes what a sent attempt did: the endpoint's health first (once the log shows a delivery's end,
 * what it did to the webhook is there too), then the delivery's record, both again while the table
 * refuses for a while (store/retry.ts: RETRY.records in the deliverer, a shorter RETRY.recordsOnRequest
 * on a request): the endpoint has the request, and a record lost would send it again. Both writes are
 * safe to repeat (an automatic attempt is recorded under its hold, once; one on request by its time).
 * Past the retries the error goes up: the hold lapses and the message, delivered again, sends again.
 */
export function settleAttempt<T>(webhook: WebhookRecord, attempt: Attempt, record: () => Promise<T>, onRequest = false): Promise<T> {
  return untilWritten(onRequest ? RETRY.recordsOnRequest : RETRY.records, async () => {
    await noteHealth(webhook, attempt);
    return record();
  });
}

/**
 * What an attempt says of the endpoint: a success clears its failing mark; a failure marks it failing
 * (from the first failure of this run of failures on: one more than 1.2 times the longest retry wait,
 * and a minute, after the last starts a new run) and, once it has failed for the settings' five days, turns it off
 * and says why. True when this attempt turned it off.
 */
async function noteHealth(webhook: WebhookRecord, attempt: Attempt): Promise<boolean> {
  if (attempt.ok) {
    if (webhook.failing_since !== undefined) await webhookHealth.healthy(webhook.workspace, webhook.id, attempt.at);
    return false;
  }
  const { retriesMs, deactivateAfterMs } = deliverySettings();
  // Failures further apart than the longest wait between retries (and then some, and the minute a run's
  // failures go unwritten: webhookHealth.ts) are separate outages.
  const freshAfter = new Date(Date.parse(attempt.at) - runFreshForMs(retriesMs)).toISOString();
  const since = await webhookHealth.failing(webhook, attempt.at, freshAfter);
  if (Date.parse(attempt.at) - Date.parse(since) < deactivateAfterMs) return false;
  const reason = `Every delivery failed from ${since} to ${attempt.at}; turn it on again (PUT active: true) once the endpoint answers 2xx.`;
  const cutoff = new Date(Date.parse(attempt.at) - deactivateAfterMs).toISOString();
  return webhookHealth.deactivate(webhook.workspace, webhook.id, cutoff, reason, attempt.at);
}
