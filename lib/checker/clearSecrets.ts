import { ItemType } from '#store/keys';
import type { Item } from '#store/query';
import { isSealed } from '#store/sealing';
import { decodeWebhook } from '#webhooks/store/webhookItem';
import { replaceWebhookSecret } from '#webhooks/store/webhooks';
import { keptSealed } from '#webhooks/subscriptions';

/** Webhook secrets kept in clear, from before they were sealed (store/sealing.ts): `check:table` names them, `rekey` seals them. */

/** A webhook whose secret, or one of those still signing beside it, is kept in clear. */
export const holdsClearSecret = (i: Item): boolean =>
  i.type === ItemType.webhook &&
  ([i.secret, ...((i.previous_secrets as Item[] | undefined) ?? []).map((p) => p.secret)].some((s) => !isSealed(String(s))) ||
    typeof i.previous_secret === 'string');

/**
 * Seals the webhook's secrets with the write a rotation makes (webhooks/store/webhooks.ts), its time of change left as
 * it was (not a user's change): conditional on the secret read, so a rotation meanwhile wins. False when it lost.
 */
export async function sealSecrets(item: Item): Promise<boolean> {
  const webhook = decodeWebhook(item);
  const previous = await Promise.all(
    (webhook.previous_secrets ?? []).map(async (p) => ({ ...p, secret: await keptSealed(webhook, p.secret) })),
  );
  return replaceWebhookSecret(webhook, await keptSealed(webhook, webhook.secret), previous, webhook.updated_at);
}
