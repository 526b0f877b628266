import { endpoint, ok } from '#http/endpoint';
import { sealedIdempotencyKeys } from '#http/idempotency';
import { rotateSecretInput } from '#webhooks/inputs';
import { rotateSecret } from '#webhooks/subscriptions';

/**
 * POST /webhooks/{id}/rotate-secret: a new secret (or `secret`, the caller's own), shown this once; the
 * replaced ones sign beside it for 24 hours each, unless `expire_previous_now`.
 */
export const handler = endpoint({
  scope: 'webhooks:write',
  idempotency: sealedIdempotencyKeys,
  input: rotateSecretInput,
  run: async ({ path, body }, { workspace }) =>
    ok({ secret: await rotateSecret(workspace, path.id, { secret: body?.secret, expirePreviousNow: body?.expire_previous_now }) }),
});
