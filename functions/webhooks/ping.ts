import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { pingWebhook } from '#webhooks/onRequest';
import { webhookPath } from '#webhooks/inputs';
import { deliveryView } from '#webhooks/views';

const input = z.object({ path: webhookPath });

/** POST /webhooks/{id}/ping: a `Webhook Ping` delivered now; the answer says whether the endpoint answered 2xx. */
export const handler = endpoint({
  scope: 'webhooks:write',
  reads: 'webhooks:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path }, { workspace }) => {
    const { attempt, delivery } = await pingWebhook(workspace, path.id);
    return ok({
      success: attempt.ok,
      status_code: attempt.result.status ?? null,
      error: attempt.result.error ?? null,
      duration_ms: attempt.result.durationMs,
      delivery: deliveryView(delivery),
    });
  },
});
