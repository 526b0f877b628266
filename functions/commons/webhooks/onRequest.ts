import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { Conflict } from '#domain/errors';
import { freeSendSlot, takeSendSlot } from '#webhooks/store/sendSlots';
import { putNewDelivery, readDelivery } from '#webhooks/store/webhookDeliveries';
import type { WebhookPingData } from './answers';
import { attemptNow } from './attempts';
import { deliveryId, newDelivery } from './deliveries';
import { type CarryGuard, type DeliveryRecord, madeForCurrentUrl, urlSetAt, type WebhookRecord } from './entities';
import { PING_TYPE, subscribesTo } from './eventTypes';
import { SEND_SLOT_LEASE_SECONDS, SENDS_ON_REQUEST_PER_WORKSPACE } from './limits';
import { deliveryNotFound, getWebhook } from './subscriptions';

/** Sends made on request, beside the schedule: a ping, a redelivery (each in one of the workspace's send slots). */

/**
 * Runs a send made on request (a ping, a redelivery) in one of the workspace's slots, or refuses it
 * with a 409 and Retry-After while every slot is held (sendSlots.ts: nothing is sent or recorded then).
 */
async function inSendSlot<T>(ws: string, send: () => Promise<T>): Promise<T> {
  const holder = randomUUID();
  const slot = await takeSendSlot(ws, SENDS_ON_REQUEST_PER_WORKSPACE, SEND_SLOT_LEASE_SECONDS, holder);
  if (slot === undefined) {
    throw new Conflict(
      `${SENDS_ON_REQUEST_PER_WORKSPACE} pings or redeliveries of this workspace are already under way; retry once they end.`,
      10,
    );
  }
  try {
    return await send();
  } finally {
    // Should freeing fail, the slot's lease frees it: the answer stands.
    await freeSendSlot(ws, slot, holder).catch(() => undefined);
  }
}

/** A ping, now: the delivery is recorded like any other, and its one attempt answered. */
export async function pingWebhook(ws: string, id: string) {
  const webhook = await getWebhook(ws, id);
  return inSendSlot(ws, () => pingNow(ws, webhook));
}

async function pingNow(ws: string, webhook: WebhookRecord) {
  const now = new Date().toISOString();
  const eventId = randomUUID();
  const data: z.infer<typeof WebhookPingData> = { webhook_id: webhook.id, company_slug: ws, event_id: eventId, occurred_at: now };
  // A ping is its one attempt, made right here: no schedule (a crash before it leaves a pending delivery no one will send).
  const { next_attempt_at: _none, ...ping } = newDelivery(webhook, PING_TYPE, eventId, deliveryId(Date.now(), webhook.id, eventId), {
    type: PING_TYPE,
    timestamp: now,
    data,
  });
  const { delivery } = await putNewDelivery(ping);
  const { attempt, delivery: after } = await attemptNow(delivery, webhook, true);
  return { attempt, delivery: after };
}

/**
 * A delivery sent again now, whatever became of it (same `webhook-id`: it is the same event), if it was
 * made for the webhook's URL as it is (one made for an earlier URL is not sent to a new one) and the
 * caller may read what the webhook carries.
 */
export async function redeliver(ws: string, id: string, deliveryIdGiven: string, mayCarry: CarryGuard): Promise<DeliveryRecord> {
  const webhook = await getWebhook(ws, id);
  mayCarry(webhook.events);
  const delivery = await readDelivery(ws, id, deliveryIdGiven);
  if (!delivery) throw deliveryNotFound(deliveryIdGiven);
  if (delivery.event_type !== PING_TYPE && !subscribesTo(webhook, delivery.event_type))
    throw new Conflict(`The webhook no longer subscribes to ${delivery.event_type}: its deliveries of that type are not sent again.`);
  if (!madeForCurrentUrl(delivery, webhook))
    throw new Conflict(
      `This delivery was made for an earlier URL of the webhook (its URL changed at ${urlSetAt(webhook)}): it is not sent to another receiver than the one it was made for.`,
    );
  return inSendSlot(ws, async () => (await attemptNow(delivery, webhook)).delivery);
}
