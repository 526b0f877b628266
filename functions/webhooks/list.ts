import { endpoint, ok } from '#http/endpoint';
import { pageMeta, pageRequest } from '#wire/validation';
import { listWebhooksInput } from '#webhooks/inputs';
import { listWebhooks } from '#webhooks/subscriptions';
import { webhookView } from '#webhooks/views';

/** GET /webhooks: the workspace's webhooks, a page at a time (never their secrets). */
export const handler = endpoint({
  scope: 'webhooks:read',
  input: listWebhooksInput(),
  run: async ({ query }, { workspace }) => {
    const req = pageRequest(query);
    const page = await listWebhooks(workspace, req);
    return ok(page.items.map(webhookView), pageMeta(req, page.nextCursor));
  },
});
