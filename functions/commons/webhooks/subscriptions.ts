import { changedSinceRead, NotFound, ValidationFailed, type Precondition } from '#domain/errors';
import { readMergedPage, readPage, type PageRequest } from '#domain/paging';
import { DELIVERY_PAGE_BUDGET, decodeDelivery, decodeWebhook, deliveriesRange, webhooksRange } from '#webhooks/store/webhookItem';
import { keys } from '#store/keys';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { deleteWebhookItem, readWebhook, replaceWebhookSecret } from '#webhooks/store/webhooks';
import { readAttemptLog, readDelivery } from '#webhooks/store/webhookDeliveries';
import { isSealed, isSealedForItsWorkspace, type SealContext, SealError, secretsAtRest, storedText, type Sealed } from '#store/sealing';
import type { DeliveryRecord, PreviousSecret, WebhookRecord } from './entities';
import { PREVIOUS_SECRET_MS } from './settings';
import { newSecret } from './signing';
import { allSettled } from '#store/settled';
import { countTries } from '#store/workspaceCounts';

/** Old secrets kept signing at most: each rotation within a day adds one, the oldest goes first. */
const MAX_PREVIOUS_SECRETS = 4;

/** The use cases of a workspace's webhooks that need no address rules: read, list, remove, rotate the secret (registering and changing: registration.ts). */

const webhookNotFound = (id: string) => new NotFound(`No webhook "${id}" in this workspace.`, 'webhook');

export async function getWebhook(ws: string, id: string): Promise<WebhookRecord> {
  const webhook = await readWebhook(ws, id);
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}

/** Removes the webhook: nothing is delivered to it afterwards (its pending deliveries find it gone). */
export async function deleteWebhook(ws: string, id: string, precondition?: Precondition<WebhookRecord>): Promise<void> {
  const count = countTries();
  await withRetries<void>(RETRY.conflicts, 'The webhook is being changed by other requests; retry shortly.', async () => {
    const current = await getWebhook(ws, id);
    await precondition?.(current);
    const outcome = await deleteWebhookItem(current, count);
    if (outcome === 'deleted') return undefined;
    if (outcome === 'again' || !precondition) return AGAIN;
    await getWebhook(ws, id);
    throw changedSinceRead();
  });
}

/**
 * A new secret (or the caller's own); the ones it replaces keep signing beside it for a day each, the
 * newest few of them, so receivers can switch without a gap however often it rotates. `expirePreviousNow`
 * ends that at once (a secret that leaked): only the new one signs.
 */
export async function rotateSecret(ws: string, id: string, opts: { secret?: string; expirePreviousNow?: boolean } = {}): Promise<string> {
  return withRetries(RETRY.conflicts, 'The webhook is being changed by other requests; retry shortly.', async () => {
    const current = await getWebhook(ws, id);
    const now = Date.now();
    const secret = opts.secret ?? newSecret();
    // A caller's own secret must be new to this webhook. One that no longer opens (sealed under a main key
    // since replaced) counts as unknown: the rotation that replaces it must still be possible.
    if (opts.secret !== undefined) {
      const known = await openAll(current, [current.secret, ...(current.previous_secrets ?? []).map((p) => p.secret)], 'skip');
      if (known.includes(secret)) throw ValidationFailed.of('secret', 'is one this webhook has signed with; give a new one');
    }
    // Kept signing beside the new one, sealed (one kept in clear from before is sealed now).
    const keep = async (p: PreviousSecret) => ({ ...p, secret: await keptSealed(current, p.secret) });
    const previous = opts.expirePreviousNow
      ? []
      : await allSettled(
          [{ secret: current.secret, expires_at: new Date(now + PREVIOUS_SECRET_MS).toISOString() }, ...stillSigning(current, now)]
            .slice(0, MAX_PREVIOUS_SECRETS)
            .map(keep),
        );
    const sealed = await sealSecret(current, secret);
    return (await replaceWebhookSecret(current, sealed, previous, new Date(now).toISOString())) ? secret : AGAIN;
  });
}

/** The previous secrets still in their day of grace, newest first. */
function stillSigning(webhook: WebhookRecord, now: number) {
  return (webhook.previous_secrets ?? []).filter((p) => Date.parse(p.expires_at) > now);
}

/**
 * The secrets a delivery made now is signed with: the current one (which must open), and the previous ones
 * while they last (one that no longer opens, sealed under a main key since replaced, is left out).
 */
export async function signingSecrets(webhook: WebhookRecord, now = Date.now()): Promise<string[]> {
  const [current, previous] = await allSettled([
    openAll(webhook, [webhook.secret]),
    openAll(
      webhook,
      stillSigning(webhook, now).map((p) => p.secret),
      'skip',
    ),
  ]);
  return [...current, ...previous];
}

/** What a webhook's sealed secrets are bound to: its workspace and id (a secret copied to another webhook does not open). */
export const secretContext = (webhook: Pick<WebhookRecord, 'workspace' | 'id'>): SealContext => ({
  workspace: webhook.workspace,
  item: `webhook-secret ${webhook.workspace} ${webhook.id}`,
});

/** `secret` (in clear) sealed for the webhook, as its item keeps it. */
export const sealSecret = (webhook: Pick<WebhookRecord, 'workspace' | 'id'>, secret: string): Promise<Sealed> =>
  secretsAtRest().seal(secret, secretContext(webhook));

/** One of the webhook's secrets as it is to be kept: as it is when sealed; sealed now when kept in clear from before. */
const keptSealed = async (webhook: Pick<WebhookRecord, 'workspace' | 'id'>, secret: Sealed): Promise<Sealed> =>
  isSealed(secret) ? secret : sealSecret(webhook, storedText(secret));

/** One of the webhook's secrets sealed as today's: under a data key of its workspace (one sealed otherwise is opened first). */
export async function resealed(webhook: Pick<WebhookRecord, 'workspace' | 'id'>, secret: Sealed): Promise<Sealed> {
  if (isSealedForItsWorkspace(secret)) return secret;
  return sealSecret(webhook, await secretsAtRest().open(secret, secretContext(webhook)));
}

/** Opens the webhook's secrets; with `skip`, one that does not open is left out instead of failing the call. */
async function openAll(webhook: WebhookRecord, sealed: Sealed[], unopenable: 'throw' | 'skip' = 'throw'): Promise<string[]> {
  const box = secretsAtRest();
  const opened = await allSettled(
    sealed.map((s) =>
      box
        .open(s, secretContext(webhook))
        .catch((error: unknown) => (unopenable === 'skip' && error instanceof SealError ? undefined : Promise.reject(error))),
    ),
  );
  return opened.filter((s): s is string => s !== undefined);
}

/** A page of the workspace's webhooks, in id order. */
export function listWebhooks(ws: string, req: PageRequest) {
  return readPage(webhooksRange(ws), ['webhooks'], req, decodeWebhook);
}

/** A page of the webhook's deliveries, newest first (the delivery engine itself stays out of this read). */
/** One delivery of the webhook (a 404 names which of the two is missing). */
export async function getDelivery(ws: string, id: string, deliveryId: string): Promise<DeliveryRecord> {
  await getWebhook(ws, id);
  const delivery = await readDelivery(ws, id, deliveryId);
  if (!delivery) throw deliveryNotFound(deliveryId);
  return { ...delivery, attempt_log: await readAttemptLog(delivery) };
}

export const deliveryNotFound = (id: string) => new NotFound(`No delivery "${id}" of this webhook.`, 'delivery');

export async function listDeliveries(ws: string, id: string, req: PageRequest, status?: DeliveryRecord['status']) {
  await getWebhook(ws, id);
  const range = { ...deliveriesRange(ws, id), ...(status ? { filter: { name: 'status', value: status } } : {}) };
  // Every shard of the deliveries, merged. The whole log's cursors stay those it always had; a status's are its own.
  const fingerprint = status ? ['deliveries', status] : ['deliveries'];
  return readMergedPage(range, keys.webhookDeliveryShards(ws, id), DELIVERY_PAGE_BUDGET, fingerprint, req, decodeDelivery);
}
