import { endpoint, resource } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { updateWebhookInput } from '#webhooks/inputs';
import { updateWebhook } from '#webhooks/registration';
import { webhookView } from '#webhooks/views';

/** PUT /webhooks/{id}: a partial update of url, events, description, project_slug, active. If-Match: 412 when stale. */
export const handler = endpoint({
  scope: 'webhooks:write',
  input: updateWebhookInput,
  run: async ({ path, body }, { workspace, ifMatch }) =>
    resource(webhookView(await updateWebhook(workspace, path.id, body, ifMatchCheck(ifMatch, webhookView)))),
});
