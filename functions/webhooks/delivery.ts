import * as z from 'zod/mini';
import { endpoint, resource } from '#http/endpoint';
import { deliveryPath } from '#webhooks/inputs';
import { getDelivery } from '#webhooks/subscriptions';
import { deliveryDetailView } from '#webhooks/views';

const input = z.object({ path: deliveryPath });

/** GET /webhooks/{id}/deliveries/{delivery_id}: one delivery with its attempt log, with its ETag (If-None-Match: 304). */
export const handler = endpoint({
  scope: 'webhooks:read',
  input,
  run: async ({ path }, { workspace }) => resource(deliveryDetailView(await getDelivery(workspace, path.id, path.delivery_id))),
});
