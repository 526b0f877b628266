import { created, endpoint } from '#http/endpoint';
import { sealedIdempotencyKeys } from '#http/idempotency';
import { mayCarry } from '#http/readScopes';
import { createWebhookInput } from '#webhooks/inputs';
import { createWebhook } from '#webhooks/registration';
import { createdWebhookView, webhookLocation } from '#webhooks/views';

/** POST /webhooks: a new webhook, its signing secret shown this once. 201; 422 for a URL the request-forgery rules refuse;
 * 403 unless the token may read what the events carry (projects:read, labels:read). */
export const handler = endpoint({
  scope: 'webhooks:write',
  reads: 'webhooks:read',
  idempotency: sealedIdempotencyKeys,
  input: createWebhookInput,
  run: async ({ body }, { workspace, principal }) => {
    mayCarry(principal)(body.events);
    const { webhook, secret } = await createWebhook(workspace, body);
    return created(createdWebhookView(webhook, secret), webhookLocation(workspace, webhook.id));
  },
});
