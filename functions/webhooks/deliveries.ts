import { endpoint, ok } from '#http/endpoint';
import { pageMeta, pageRequest } from '#wire/validation';
import { listDeliveries } from '#webhooks/subscriptions';
import { listDeliveriesInput } from '#webhooks/inputs';
import { deliveryView } from '#webhooks/views';

/** GET /webhooks/{id}/deliveries: the webhook's deliveries of the last 30 days (of one status, if asked), newest first, a page at a time. */
export const handler = endpoint({
  scope: 'webhooks:read',
  input: listDeliveriesInput(),
  run: async ({ path, query }, { workspace }) => {
    const req = pageRequest(query);
    const page = await listDeliveries(workspace, path.id, req, query.status);
    return ok(page.items.map(deliveryView), pageMeta(req, page.nextCursor));
  },
});
