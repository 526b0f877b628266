import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { webhookEventTypes } from '#webhooks/eventTypes';

/** GET /webhook-event-types: the event types a webhook may subscribe to, each with both its names and what it tells. */
export const handler = endpoint({
  scope: 'webhooks:read',
  input: z.object({}),
  run: async () => ok(webhookEventTypes()),
});
