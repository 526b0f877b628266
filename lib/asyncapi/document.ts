import type * as z from 'zod';
import { EVENT_SOURCE, INBOUND_TYPES, OUTBOUND_TYPES, type InboundType, type OutboundType } from '#domain/eventNames';
import { INBOUND_EARLIEST, INBOUND_FUTURE_SKEW_MS, MAX_JSON_DEPTH } from '#domain/limits';
import { OUTBOUND_DESCRIPTIONS, OUTBOUND_DETAILS } from '#wire/eventSchemas';
import { INBOUND_DESCRIPTIONS, INBOUND_SUBJECT, inboundEnvelope, ISO_INSTANT } from '#wire/inboundSchemas';
import { componentSchemaOf } from '#lib/jsonSchema';

/**
 * The AsyncAPI 3.0 document of the service's events: every outbound event (published from the
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

function outboundPayload(type: OutboundType, components: Json): Json {
  return {
    type: 'object',
    required: ['source', 'detail-type', 'detail'],
    properties: {
      source: { type: 'string', const: EVENT_SOURCE },
      'detail-type': { type: 'string', const: type },
      detail: schemaOf(OUTBOUND_DETAILS[type], 'output', components),
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
function message(type: string, summary: string, payload: Json, schemas: Json): Json {
  const name = messageName(type);
  schemas[`${name}Event`] = payload;
  return { name, title: type, summary, contentType: 'application/json', payload: { $ref: `#/components/schemas/${name}Event` } };
}

const refs = (types: readonly string[], to: string) =>
  Object.fromEntries(types.map((t) => [messageName(t), { $ref: `${to}/${messageName(t)}` }]));

export function buildAsyncApi(): Json {
  const schemas: Json = {};
  const messages: Json = {};
  for (const type of OUTBOUND_TYPES)
    messages[messageName(type)] = message(type, OUTBOUND_DESCRIPTIONS[type], outboundPayload(type, schemas), schemas);
  for (const type of INBOUND_TYPES)
    messages[messageName(type)] = message(type, INBOUND_DESCRIPTIONS[type], inboundPayload(type, schemas), schemas);
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Project and Label Management Service events',
      version: '1.0.0',
      description:
        'What the service publishes on its EventBridge bus (one event per public change, at least once, deduplicated by `detail.event_id`) ' +
        "and what it takes in from the rest of the product to keep the projects' stats.",
    },
    defaultContentType: 'application/json',
    channels: {
      changes: {
        address: EVENT_SOURCE,
        title: 'Changes',
        description:
          `The stack's event bus, events with source "${EVENT_SOURCE}"; detail-type names the message. ` +
          'Each message is the EventBridge event as a rule target receives it (its other envelope members as EventBridge sets them).',
        messages: refs(OUTBOUND_TYPES, '#/components/messages'),
      },
      productEvents: {
        address: 'inbound',
        title: 'Product events',
        description: "Task, member and sprint events on the stack's event bus, matched by detail-type and delivered to the inbound queue.",
        messages: refs(INBOUND_TYPES, '#/components/messages'),
      },
    },
    operations: {
      publishChange: {
        action: 'send',
        channel: { $ref: '#/channels/changes' },
        summary: "One event per public change, published from the table's stream.",
        messages: Object.values(refs(OUTBOUND_TYPES, '#/channels/changes/messages')),
      },
      receiveProductEvent: {
        action: 'receive',
        channel: { $ref: '#/channels/productEvents' },
        summary: "Applied to the project's stats at most once per event id, in any order.",
        messages: Object.values(refs(INBOUND_TYPES, '#/channels/productEvents/messages')),
      },
    },
    components: { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))), messages },
  };
}
