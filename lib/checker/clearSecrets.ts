import { ItemType } from '#store/keys';
import type { Item } from '#store/query';
import { isSealed, isSealedForItsWorkspace } from '#store/sealing';
import { decodeWebhook } from '#webhooks/store/webhookItem';
import { replaceWebhookSecret } from '#webhooks/store/webhooks';
import { resealed } from '#webhooks/subscriptions';

/**
 * Webhook secrets kept as no longer written: in clear, from before they were sealed, or sealed before data keys
 * were per workspace (`sealed:v1:`, whose unwrap names no workspace: docs/webhooks.md). `check:table` names
 * them, `rekey` seals them as today's (under a data key of their workspace).
 */

/** What is old about a webhook's secrets (its own, or one still signing beside it), if anything. */
export function oldSecretsOf(i: Item): 'clear' | 'v1' | undefined {
  if (i.type !== ItemType.webhook) return undefined;
  const secrets = [i.secret, ...((i.previous_secrets as Item[] | undefined) ?? []).map((p) => p.secret)].map(String);
  if (secrets.some((s) => !isSealed(s)) || typeof i.previous_secret === 'string') return 'clear';
  return secrets.some((s) => !isSealedForItsWorkspace(s)) ? 'v1' : undefined;
}

/** What check:table says of a webhook whose secrets are old, if they are. */
export function oldSecretViolations(i: Item): string[] {
  const old = oldSecretsOf(i);
  if (old === 'clear')
    return [`webhook ${i.workspace}/${i.id} keeps a signing secret in clear (from before secrets were sealed); npm run rekey seals it`];
  if (old === 'v1')
    return [
      `webhook ${i.workspace}/${i.id} keeps a signing secret sealed before data keys were per workspace (sealed:v1); npm run rekey reseals it locally, a rotation (expire_previous_now) deployed`,
    ];
  return [];
}

/**
 * Seals the webhook's secrets anew (one in clear sealed, a v1 one opened and sealed) with the write a rotation makes
 * (webhooks/store/webhooks.ts), its time of change left as it was (not a user's change): conditional on the
 * secret read, so a rotation meanwhile wins. False when it lost.
 */
export async function sealSecrets(item: Item): Promise<boolean> {
  const webhook = decodeWebhook(item);
  const previous = await Promise.all(
    (webhook.previous_secrets ?? []).map(async (p) => ({ ...p, secret: await resealed(webhook, p.secret) })),
  );
  return replaceWebhookSecret(webhook, await resealed(webhook, webhook.secret), previous, webhook.updated_at);
}
