import { endpoint, resource } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { mayCarry } from '#http/readScopes';
import { updateWebhookInput } from '#webhooks/inputs';
import { updateWebhook } from '#webhooks/registration';
import { webhookView } from '#webhooks/views';

/**
 * PUT /webhooks/{id}: a partial update of url, events, description, project_slug, active. If-Match: 412 when stale.
 * A change of url, events or project_slug needs the read scopes of what the webhook carries before and after it (403).
 */
export const handler = endpoint({
  scope: 'webhooks:write',
  reads: 'webhooks:read',
  input: updateWebhookInput,
  run: async ({ path, body }, { workspace, ifMatch, principal }) =>
    resource(webhookView(await updateWebhook(workspace, path.id, body, mayCarry(principal), ifMatchCheck(ifMatch, webhookView)))),
});
