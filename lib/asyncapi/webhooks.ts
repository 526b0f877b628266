import type * as z from 'zod';
import { OUTBOUND_DESCRIPTIONS, OUTBOUND_TYPES, type OutboundType } from '#domain/eventNames';
import { WebhookPingData } from '#webhooks/answers';
import { PING_TYPE } from '#webhooks/eventTypes';
import { componentSchemaOf } from '#lib/jsonSchema';

/**
 * The webhook side of the AsyncAPI document: every event as it is POSTed to a registered URL (the
 * body `{type, timestamp, data}`, `data` the same detail as the bus event), with the Standard
 * Webhooks headers each delivery carries, and the ping.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is plain JSON
type Json = Record<string, any>;

export const webhookMessageName = (type: string) => `${type.replaceAll(' ', '')}Delivery`;

const HEADERS: Json = {
  type: 'object',
  required: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent'],
  properties: {
    'webhook-id': {
      type: 'string',
      pattern: '^msg_[0-9a-f]{32}$',
      description: 'The same on every attempt of one event to one webhook: deduplicate on it.',
    },
    'webhook-timestamp': { type: 'string', pattern: '^[0-9]+$', description: "This attempt's time, seconds since the epoch." },
    'webhook-signature': {
      type: 'string',
      pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
      description:
        'Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the base64-decoded secret after `whsec_`; two for a day after a rotation.',
    },
    'content-type': { type: 'string', const: 'application/json' },
    'user-agent': { type: 'string', pattern: '^project-label-service-webhooks/' },
  },
};

function payload(type: string, data: Json): Json {
  return {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', const: type },
      timestamp: { type: 'string', format: 'date-time', description: "The event's occurred_at." },
      data,
    },
  };
}

/** Every webhook message, its payload named in components (`<Name>DeliveryEvent`) and its headers (`WebhookHeaders`). */
export function webhookMessages(schemas: Json, detailRef: (type: OutboundType) => Json): Json {
  schemas.WebhookHeaders = HEADERS;
  const pingData = componentSchemaOf(WebhookPingData as z.core.$ZodType, { io: 'output', target: 'draft-7' }, schemas);
  const entries: [string, string, Json][] = [
    ...OUTBOUND_TYPES.map((t): [string, string, Json] => [t, OUTBOUND_DESCRIPTIONS[t], detailRef(t)]),
    [PING_TYPE, 'Sent on request (POST /webhooks/{id}/ping), to check an endpoint.', pingData],
  ];
  return Object.fromEntries(
    entries.map(([type, summary, data]) => {
      const name = webhookMessageName(type);
      schemas[`${name}Event`] = payload(type, data);
      const message = {
        name,
        title: type,
        summary,
        contentType: 'application/json',
        headers: { $ref: '#/components/schemas/WebhookHeaders' },
        payload: { $ref: `#/components/schemas/${name}Event` },
      };
      return [name, message];
    }),
  );
}

const ALL = [...OUTBOUND_TYPES, PING_TYPE].map(webhookMessageName);

export const WEBHOOKS_TAG = { name: 'webhooks', description: 'What the service POSTs to the URLs a workspace registers (POST /webhooks).' };

export const WEBHOOK_SERVER: Json = {
  host: '{host}',
  protocol: 'https',
  title: 'A webhook endpoint',
  description:
    'The URL a workspace registered (a public https address; locally, with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true, http on loopback too).',
  variables: { host: { description: "The registered URL's host." } },
};

export const WEBHOOKS_CHANNEL: Json = {
  address: null,
  title: 'Webhooks',
  servers: [{ $ref: '#/servers/webhookEndpoint' }],
  description:
    'One POST per event per webhook that wants it, to the URL registered (its address varies: the channel has none of its own), signed ' +
    'to the Standard Webhooks specification. Retried for about a day until the endpoint answers 2xx; at least once, unordered.',
  messages: Object.fromEntries(ALL.map((name) => [name, { $ref: `#/components/messages/${name}` }])),
};

export const WEBHOOKS_OPERATION: Json = {
  action: 'send',
  channel: { $ref: '#/channels/webhooks' },
  summary: 'Every change, and pings on request, POSTed to the webhooks that want them.',
  description:
    'The body is `{"type", "timestamp", "data"}`: `data` is the detail of the event of the same type on the changes channel. ' +
    'Verify `webhook-signature` with any Standard Webhooks library and the secret of the webhook.',
  tags: [{ name: WEBHOOKS_TAG.name }],
  messages: ALL.map((name) => ({ $ref: `#/channels/webhooks/messages/${name}` })),
};
