import type * as z from 'zod';
import {
  EVENT_SOURCE,
  INBOUND_TYPES,
  OUTBOUND_DESCRIPTIONS,
  OUTBOUND_TYPES,
  type InboundType,
  type OutboundType,
} from '#domain/eventNames';
import { INBOUND_EARLIEST, INBOUND_FUTURE_SKEW_MS, MAX_JSON_DEPTH } from '#domain/limits';
import { OUTBOUND_DETAILS } from '#wire/eventSchemas';
import { INBOUND_DESCRIPTIONS, INBOUND_SUBJECT, inboundEnvelope, ISO_INSTANT } from '#wire/inboundSchemas';
import { CONTACT, LICENSE_NAME, REGION_VARIABLE } from '#lib/documentInfo';
import { componentSchemaOf } from '#lib/jsonSchema';
import { WEBHOOK_SERVER, WEBHOOKS_CHANNEL, WEBHOOKS_OPERATION, WEBHOOKS_TAG, webhookMessages } from './webhooks.ts';

/**
 * The AsyncAPI 3.1 document of the service's events: every outbound event (published from the
 * table's stream) and every inbound event it accepts, built from the declarations the publisher is
 * typed by (wire/eventSchemas.ts) and the consumer validates with (wire/inboundSchemas.ts).
 * `npm run asyncapi` writes it to asyncapi.json and renders docs/event-reference.md; a test fails
 * when either is stale.
 */

// The document is plain JSON, built freely (its shape is checked by @asyncapi/parser in the tests).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export const ASYNCAPI_FILE = 'asyncapi.json';

/** The name a message goes by in the document: `Project Created` -> `ProjectCreated`. */
export const messageName = (type: string) => type.replaceAll(' ', '');

/** JSON Schema (draft 7, the base of AsyncAPI's schema format) of a zod schema, its named parts moved to components. */
const schemaOf = (schema: z.core.$ZodType, io: 'input' | 'output', components: Json) =>
  componentSchemaOf(schema, { io, target: 'draft-7' }, components);

/** An outbound event's detail, named in components (`<Name>Detail`): the bus event and the webhook delivery both carry it. */
function detailRef(type: OutboundType, components: Json): Json {
  components[`${messageName(type)}Detail`] ??= schemaOf(OUTBOUND_DETAILS[type], 'output', components);
  return { $ref: `#/components/schemas/${messageName(type)}Detail` };
}

function outboundPayload(type: OutboundType, components: Json): Json {
  return {
    type: 'object',
    required: ['source', 'detail-type', 'detail'],
    properties: {
      source: { type: 'string', const: EVENT_SOURCE },
      'detail-type': { type: 'string', const: type },
      detail: detailRef(type, components),
    },
  };
}

const earliest = new Date(INBOUND_EARLIEST).toISOString().slice(0, 10);

function inboundPayload(type: InboundType, components: Json): Json {
  const envelope = schemaOf(inboundEnvelope, 'input', components);
  const detail = envelope.properties.detail as Json;
  const subject = INBOUND_SUBJECT[type];
  return {
    ...envelope,
    description:
      `An EventBridge event with detail-type "${type}" from any source but this service's own, as SQS delivers it. Also refused ` +
      `(dead-lettered with the reason): an instant that names no real time (2026-02-30), one before ${earliest} or more than ` +
      `${INBOUND_FUTURE_SKEW_MS / 60_000} minutes in the future, a body nested more than ${MAX_JSON_DEPTH} levels deep.`,
    properties: {
      ...envelope.properties,
      // The bus rule sends the queue every matching event but the service's own.
      source: { type: 'string', not: { const: EVENT_SOURCE } },
      'detail-type': { type: 'string', const: type },
      detail: { ...detail, required: [...(detail.required as string[]), subject] },
    },
    allOf: [
      {
        description: 'An event id: detail.event_id, else the envelope id (EventBridge sets it).',
        anyOf: [{ properties: { detail: { required: ['event_id'] } } }, { required: ['id'], properties: { id: { minLength: 1 } } }],
      },
      {
        description:
          'When it happened: detail.occurred_at (an ISO 8601 date-time with its offset, seconds required, at most nine digits of fraction), ' +
          'else the envelope time (EventBridge sets it; seconds may be left out).',
        anyOf: [
          { properties: { detail: { required: ['occurred_at'] } } },
          { required: ['time'], properties: { time: { type: 'string', pattern: ISO_INSTANT.source } } },
        ],
      },
    ],
  };
}

/** A message, its payload named in components (`<Name>Event`) so that generators give its model a name. */
function message(type: string, summary: string, payload: Json, schemas: Json, name = messageName(type), more: Json = {}): Json {
  schemas[`${name}Event`] = payload;
  return { name, title: type, summary, contentType: 'application/json', payload: { $ref: `#/components/schemas/${name}Event` }, ...more };
}

const refs = (types: readonly string[], to: string) =>
  Object.fromEntries(types.map((t) => [messageName(t), { $ref: `${to}/${messageName(t)}` }]));

/** The operations' descriptions: each of their messages with the sentence declared for it. */
const PUBLISHED = OUTBOUND_TYPES.map((t) => `- **${t}**: ${OUTBOUND_DESCRIPTIONS[t]}`).join('\n');
const TAKEN_IN = INBOUND_TYPES.map((t) => `- **${t}** (\`${INBOUND_SUBJECT[t]}\`): ${INBOUND_DESCRIPTIONS[t]}`).join('\n');

/** Which way an event travels: the tags of the document and of its operations. */
const TAGS = {
  outbound: {
    name: 'outbound',
    description:
      'What the service publishes: one event per public change of a project, a label or a link, and the health of the workspace webhooks.',
  },
  inbound: { name: 'inbound', description: "What the service takes in from the rest of the product to keep the projects' stats." },
};

export function buildAsyncApi(): Json {
  const schemas: Json = {};
  const messages: Json = {};
  for (const type of OUTBOUND_TYPES)
    messages[messageName(type)] = message(type, OUTBOUND_DESCRIPTIONS[type], outboundPayload(type, schemas), schemas);
  for (const type of INBOUND_TYPES)
    messages[messageName(type)] = message(type, INBOUND_DESCRIPTIONS[type], inboundPayload(type, schemas), schemas);
  Object.assign(
    messages,
    webhookMessages(schemas, (type) => detailRef(type, schemas)),
  );
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Project and Label Management Service events',
      version: '1.0.0',
      description:
        'What the service publishes on its EventBridge bus (one event per public change, and one as a webhook endpoint starts failing, is turned off or recovers; at least once, deduplicated by `detail.event_id`) ' +
        "and what it takes in from the rest of the product to keep the projects' stats.",
      contact: CONTACT,
      license: { name: LICENSE_NAME },
      tags: [...Object.values(TAGS), WEBHOOKS_TAG],
    },
    servers: {
      eventBridge: {
        host: 'events.{region}.amazonaws.com',
        protocol: 'https',
        title: 'Amazon EventBridge',
        description:
          "The stack's event bus (its EventBusName output) in the stack's region carries both channels. Locally, `npm start` appends " +
          'the outbound events to a file (`npm run events:follow` prints them) and takes inbound ones from `npm run emit`.',
        variables: { region: REGION_VARIABLE },
      },
      webhookEndpoint: WEBHOOK_SERVER,
    },
    defaultContentType: 'application/json',
    channels: {
      changes: {
        address: EVENT_SOURCE,
        servers: [{ $ref: '#/servers/eventBridge' }],
        title: 'Changes',
        description:
          `The stack's event bus, events with source "${EVENT_SOURCE}"; detail-type names the message. ` +
          'Each message is the EventBridge event as a rule target receives it (its other envelope members as EventBridge sets them).',
        messages: refs(OUTBOUND_TYPES, '#/components/messages'),
      },
      productEvents: {
        address: 'inbound',
        servers: [{ $ref: '#/servers/eventBridge' }],
        title: 'Product events',
        description: "Task, member and sprint events on the stack's event bus, matched by detail-type and delivered to the inbound queue.",
        messages: refs(INBOUND_TYPES, '#/components/messages'),
      },
      webhooks: WEBHOOKS_CHANNEL,
    },
    operations: {
      publishChange: {
        action: 'send',
        channel: { $ref: '#/channels/changes' },
        summary: "One event per public change (and per change of a webhook's health), published from the table's stream.",
        description: PUBLISHED,
        tags: [{ name: TAGS.outbound.name }],
        messages: Object.values(refs(OUTBOUND_TYPES, '#/channels/changes/messages')),
      },
      receiveProductEvent: {
        action: 'receive',
        channel: { $ref: '#/channels/productEvents' },
        summary: "Applied to the project's stats at most once per event id, in any order.",
        description: TAKEN_IN,
        tags: [{ name: TAGS.inbound.name }],
        messages: Object.values(refs(INBOUND_TYPES, '#/channels/productEvents/messages')),
      },
      deliverWebhook: WEBHOOKS_OPERATION,
    },
    components: { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))), messages },
  };
}
