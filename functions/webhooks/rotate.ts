import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { webhookPath } from '#webhooks/inputs';
import { rotateSecret } from '#webhooks/subscriptions';

const input = z.object({ path: webhookPath });

/** POST /webhooks/{id}/rotate-secret: a new secret, shown this once; the old one signs beside it for 24 hours. */
export const handler = endpoint({
  scope: 'webhooks:write',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path }, { workspace }) => ok({ secret: await rotateSecret(workspace, path.id) }),
});
