import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { mayCarry } from '#http/readScopes';
import { recoverInput } from '#webhooks/inputs';
import { recoverDeliveries } from '#webhooks/recovery';

/** POST /webhooks/{id}/recover: every delivery since `since` that was not delivered, queued to be sent again; answers how many. */
export const handler = endpoint({
  scope: 'webhooks:write',
  idempotency: idempotencyKeys,
  input: recoverInput,
  run: async ({ path, body }, { workspace, principal }) =>
    ok(await recoverDeliveries(workspace, path.id, Date.parse(body.since), mayCarry(principal))),
});
