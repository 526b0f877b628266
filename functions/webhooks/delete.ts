import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { webhookPath } from '#webhooks/inputs';
import { deleteWebhook } from '#webhooks/subscriptions';
import { webhookView } from '#webhooks/views';

const input = z.object({ path: webhookPath });

/** DELETE /webhooks/{id}: the webhook is gone; nothing is delivered to it afterwards. 200 `{ id, deleted: true }`. */
export const handler = endpoint({
  scope: 'webhooks:write',
  input,
  run: async ({ path }, { workspace, ifMatch }) => {
    await deleteWebhook(workspace, path.id, ifMatchCheck(ifMatch, webhookView));
    return ok({ id: path.id, deleted: true });
  },
});
