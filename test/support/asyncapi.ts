import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ASYNCAPI_FILE, messageName } from '#lib/asyncapi/document';
import { withRefsMoved } from '#lib/jsonSchema';
import { repoRoot } from '#lib/paths';

/**
 * Events checked against the committed asyncapi.json: each message's payload schema (JSON Schema
 * draft 7, AsyncAPI's default schema format; formats checked), by the event's detail-type.
 */
const COMPONENTS_ID = 'https://project-label-service.dev/asyncapi.json/components';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is plain JSON
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
