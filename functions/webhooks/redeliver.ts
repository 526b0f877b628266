import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { mayCarry } from '#http/readScopes';
import { redeliver } from '#webhooks/onRequest';
import { deliveryPath } from '#webhooks/inputs';
import { deliveryView } from '#webhooks/views';

const input = z.object({ path: deliveryPath });

/** POST /webhooks/{id}/deliveries/{delivery_id}/redeliver: the delivery sent again now (same webhook-id); answers it after the attempt. */
export const handler = endpoint({
  scope: 'webhooks:write',
  reads: 'webhooks:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path }, { workspace, principal }) =>
    ok(deliveryView(await redeliver(workspace, path.id, path.delivery_id, mayCarry(principal)))),
});
