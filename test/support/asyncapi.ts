import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ASYNCAPI_FILE, messageName } from '#lib/asyncapi/document';
import { webhookMessageName } from '#lib/asyncapi/webhooks';
import { withRefsMoved } from '#lib/jsonSchema';
import { repoRoot } from '#lib/paths';

/**
 * Events checked against the committed asyncapi.json: each message's payload schema (JSON Schema
 * draft 7, AsyncAPI's default schema format; formats checked), by the event's detail-type.
 */
const COMPONENTS_ID = 'https://project-label-service.dev/asyncapi.json/components';
const doc = JSON.parse(readFileSync(join(repoRoot, ASYNCAPI_FILE), 'utf8')) as Record<string, any>;

const withAjvRefs = (value: unknown) => withRefsMoved(value, '#/components/schemas/', `${COMPONENTS_ID}#/definitions/`);

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: COMPONENTS_ID, definitions: withAjvRefs(doc.components.schemas) });

const compiled = new Map<string, ValidateFunction>();

/** The validator of the message a detail-type names in `channel` (changes or productEvents); undefined when it has none. */
export function messageValidator(channel: 'changes' | 'productEvents', type: string): ValidateFunction | undefined {
  const key = `${channel}/${type}`;
  if (compiled.has(key)) return compiled.get(key);
  const listed = doc.channels[channel]?.messages?.[messageName(type)];
  const message = listed ? doc.components.messages[messageName(type)] : undefined;
  const v = message && message.title === type ? ajv.compile(withAjvRefs(message.payload) as object) : undefined;
  if (v) compiled.set(key, v);
  return v;
}

/** What is wrong with each outbound event (an EventBridge event, as the local bus writes it) that the document does not describe. */
export function outboundMismatches(events: Record<string, unknown>[]): string[] {
  return events.flatMap((e) => {
    const name = `${String(e['detail-type'])} ${String(e.id)}`;
    const v = messageValidator('changes', String(e['detail-type']));
    if (!v) return [`${name}: no such message in ${ASYNCAPI_FILE}`];
    return v(e) ? [] : [`${name}: ${ajv.errorsText(v.errors)}`];
  });
}

const headersValidator = () => {
  const key = 'webhooks/headers';
  if (!compiled.has(key)) compiled.set(key, ajv.compile(withAjvRefs({ $ref: '#/components/schemas/WebhookHeaders' }) as object));
  return compiled.get(key)!;
};

/** What is wrong with a webhook delivery (its headers and JSON body, as an endpoint received them) that the document does not describe. */
export function webhookMismatches(headers: Record<string, unknown>, body: { type?: unknown }): string[] {
  const name = `webhook ${String(body.type)} ${String(headers['webhook-id'])}`;
  const problems: string[] = [];
  const h = headersValidator();
  if (!h(headers)) problems.push(`${name}: headers: ${ajv.errorsText(h.errors)}`);
  const messageKey = webhookMessageName(String(body.type));
  const message = doc.channels.webhooks?.messages?.[messageKey] ? doc.components.messages[messageKey] : undefined;
  if (!message) return [...problems, `${name}: no such message in ${ASYNCAPI_FILE}`];
  const key = `webhooks/${messageKey}`;
  if (!compiled.has(key)) compiled.set(key, ajv.compile(withAjvRefs(message.payload) as object));
  const v = compiled.get(key)!;
  if (!v(body)) problems.push(`${name}: ${ajv.errorsText(v.errors)}`);
  return problems;
}
