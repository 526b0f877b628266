import * as z from 'zod/mini';
import { seesWholeUrl } from '#http/readScopes';
import { endpoint, resource } from '#http/endpoint';
import { webhookPath } from '#webhooks/inputs';
import { getWebhook } from '#webhooks/subscriptions';
import { webhookView } from '#webhooks/views';

const input = z.object({ path: webhookPath });

/** GET /webhooks/{id}: one webhook (no secret; its whole URL to a token that may point it elsewhere), with its ETag (If-None-Match: 304). */
export const handler = endpoint({
  scope: 'webhooks:read',
  input,
  run: async ({ path }, { workspace, principal }) => {
    const webhook = await getWebhook(workspace, path.id);
    return resource(webhookView(webhook, { wholeUrl: seesWholeUrl(principal, webhook) }));
  },
});
