import { changedSinceRead, NotFound, type Precondition } from '#domain/errors';
import { readPage, type PageRequest } from '#domain/paging';
import { decodeDelivery, decodeWebhook, deliveriesRange, webhooksRange } from '#store/webhookItem';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { deleteWebhookItem, readWebhook, rotateWebhookSecret } from '#store/webhooks';
import type { WebhookRecord } from './entities';
import { PREVIOUS_SECRET_MS } from './settings';
import { newSecret } from './signing';

/** The use cases of a workspace's webhooks that need no address rules: read, list, remove, rotate the secret (registering and changing: registration.ts). */

const webhookNotFound = (id: string) => new NotFound(`No webhook "${id}" in this workspace.`, 'webhook');

export async function getWebhook(ws: string, id: string): Promise<WebhookRecord> {
  const webhook = await readWebhook(ws, id);
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}

/** Removes the webhook: nothing is delivered to it afterwards (its pending deliveries find it gone). */
export async function deleteWebhook(ws: string, id: string, precondition?: Precondition<WebhookRecord>): Promise<void> {
  await withRetries<void>(RETRY.conflicts, 'The webhook is being changed by other requests; retry shortly.', async () => {
    const current = await getWebhook(ws, id);
    await precondition?.(current);
    if (await deleteWebhookItem(current)) return undefined;
    if (!precondition) return AGAIN;
    await getWebhook(ws, id);
    throw changedSinceRead();
  });
}

/** A new secret; the one it replaces keeps signing beside it for a day, so receivers can switch without a gap. */
export async function rotateSecret(ws: string, id: string): Promise<string> {
  const now = Date.now();
  const secret = newSecret();
  const rotated = await rotateWebhookSecret(ws, id, secret, new Date(now + PREVIOUS_SECRET_MS).toISOString(), new Date(now).toISOString());
  if (!rotated) throw webhookNotFound(id);
  return secret;
}

/** The secrets a delivery made now is signed with: the current one, and the previous while it lasts. */
export function signingSecrets(webhook: WebhookRecord, now = Date.now()): string[] {
  const previous = webhook.previous_secret;
  const until = webhook.previous_secret_expires_at;
  return previous && until && Date.parse(until) > now ? [webhook.secret, previous] : [webhook.secret];
}

/** A page of the workspace's webhooks, in id order. */
export function listWebhooks(ws: string, req: PageRequest) {
  return readPage(webhooksRange(ws), ['webhooks'], req, decodeWebhook);
}

/** A page of the webhook's deliveries, newest first (the delivery engine itself stays out of this read). */
export async function listDeliveries(ws: string, id: string, req: PageRequest) {
  await getWebhook(ws, id);
  return readPage(deliveriesRange(ws, id), ['deliveries'], req, decodeDelivery);
}
