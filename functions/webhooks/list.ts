import { seesWholeUrl } from '#http/readScopes';
import { endpoint, ok } from '#http/endpoint';
import { pageMeta, pageRequest } from '#wire/validation';
import { listWebhooksInput } from '#webhooks/inputs';
import { listWebhooks } from '#webhooks/subscriptions';
import { webhookView } from '#webhooks/views';

/** GET /webhooks: the workspace's webhooks, a page at a time (never their secrets; their whole URLs to a token that may point them elsewhere). */
export const handler = endpoint({
  scope: 'webhooks:read',
  input: listWebhooksInput(),
  run: async ({ query }, { workspace, principal }) => {
    const req = pageRequest(query);
    const page = await listWebhooks(workspace, req);
    return ok(
      page.items.map((w) => webhookView(w, { wholeUrl: seesWholeUrl(principal, w) })),
      pageMeta(req, page.nextCursor),
    );
  },
});
