import * as z from 'zod';
import { DELIVERY_STATUSES } from './entities';

/**
 * What the webhook routes answer, declared once: the views (views.ts) are typed by these schemas (a
 * type-only import) and the OpenAPI document is built from them.
 */
const timestamp = z.iso.datetime({ offset: true });
const nullableTime = timestamp.nullable();

export const Webhook = z
  .object({
    id: z.string().meta({ description: 'The webhook id (`wh_` + 24 hex digits).' }),
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'Event types delivered, or `["*"]` for all.' }),
    description: z.string(),
    project_slug: z.string().nullable().meta({ description: "Only this project's events, when set." }),
    active: z.boolean(),
    failing_since: nullableTime.meta({ description: 'Since when every delivery has failed; null while healthy.' }),
    deactivated_reason: z.string().nullable().meta({ description: 'Why the service turned it off (five days of failures).' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Webhook' });

/**
 * The webhook an operational event (Webhook Failing, ...) is about, told to the workspace's other webhooks:
 * as GET /webhooks/{id} shows it, but its URL's host alone (a URL's path or query often carries a credential).
 */
export const WebhookSummary = Webhook.omit({ url: true })
  .extend({ host: z.string().meta({ description: "The host of the webhook's URL (its path and query are left out)." }) })
  .meta({ id: 'WebhookSummary' });

export const WebhookCreated = Webhook.extend({
  secret: z.string().meta({ description: 'The signing secret (`whsec_` + base64): shown now and on rotation only.' }),
}).meta({ id: 'WebhookCreated' });

export const WebhookSecret = z.object({ secret: z.string() }).meta({ id: 'WebhookSecret' });
export const WebhookDeleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'WebhookDeleted' });

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: 'The `webhook-id` header of every attempt: receivers deduplicate on it.' }),
    webhook_id: z.string(),
    event_type: z.string(),
    event_id: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().min(0),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    last_response: z
      .string()
      .nullable()
      .meta({ description: "The first 1,000 characters of the endpoint's last answer, if it had a body." }),
    last_attempt_at: nullableTime,
    next_attempt_at: nullableTime.meta({ description: 'When the next automatic attempt is due; null unless pending.' }),
    delivered_at: nullableTime,
    created_at: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

const WebhookAttempt = z
  .object({
    at: timestamp,
    status_code: z.int().nullable().meta({ description: "The endpoint's answer; null when there was none (see error)." }),
    error: z.string().nullable().meta({ description: 'Why the attempt got no answer (a timeout, a refused address...), or null.' }),
    duration_ms: z.int().min(0),
    trigger: z.enum(['automatic', 'manual']).meta({ description: 'Made by the retry schedule, or on request (a ping, a redelivery).' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  attempt_log: z.array(WebhookAttempt).meta({
    description: 'Each attempt, oldest first (the first 50; `attempts` counts them all): those made since the log began.',
  }),
}).meta({ id: 'WebhookDeliveryDetail' });

export const WebhookRecovery = z
  .object({
    queued: z.int().min(0).meta({ description: 'How many deliveries were queued on the retry lane, to be sent again.' }),
    more: z.boolean().meta({
      description: `Whether deliveries since then were left for another call (one call takes at most 500, in at most 8 seconds; call again with the same since).`,
    }),
  })
  .meta({ id: 'WebhookRecovery' });

export const WebhookPing = z
  .object({
    success: z.boolean().meta({ description: 'Whether the endpoint answered 2xx.' }),
    status_code: z.int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.int().min(0),
    delivery: WebhookDelivery,
  })
  .meta({ id: 'WebhookPing' });

export const WebhookEventType = z
  .object({
    name: z.string().meta({ description: 'The type as deliveries name it (`type`), e.g. `Project Created`.' }),
    dotted_name: z.string().meta({ description: 'The same type in the dotted form `events` also takes, e.g. `project.created`.' }),
    description: z.string(),
  })
  .meta({ id: 'WebhookEventType' });

/** What a `Webhook Ping` delivery carries as its `data`. */
export const WebhookPingData = z
  .strictObject({
    webhook_id: z.string(),
    company_slug: z.string(),
    event_id: z.string().meta({ description: 'A fresh id per ping.' }),
    occurred_at: timestamp,
  })
  .meta({ id: 'WebhookPingData' });
