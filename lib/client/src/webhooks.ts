import { UnknownWebhookEventError, WebhookVerificationError } from './errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from './generated.js';

/** Headers as fetch (`Headers`), Node (`IncomingHttpHeaders`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** How far a delivery's `webhook-timestamp` may be from now. */
const TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string {
  const value =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text === '') throw new WebhookVerificationError(`The ${name} header is missing.`);
  return text;
}

function base64Bytes(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * Verifies a webhook delivery to the Standard Webhooks specification, with the platform's own crypto
 * (Web Crypto: Node 20+, browsers, Deno, Bun): an HMAC-SHA256 of `id.timestamp.body` under the secret
 * (`whsec_` + base64); one good signature among the header's several is enough (a rotation signs with
 * each secret in its grace), a timestamp more than 5 minutes off is refused. `rawBody` is the body as
 * received, before any JSON parsing. Returns the event, typed by its `type`; throws a
 * WebhookVerificationError on anything else (an UnknownWebhookEventError, carrying the event, when it
 * verified but its type is newer than this client).
 */
export async function verifyWebhook(
  secret: string,
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  options: { now?: Date } = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!(Math.abs(now - seconds) <= TOLERANCE_SECONDS))
    throw new WebhookVerificationError('The webhook-timestamp is more than 5 minutes off.');
  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('The secret is not a whsec_ secret.');
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  let verified = false;
  for (const part of signatures.split(' ')) {
    const [version, signature] = part.split(',', 2);
    const bytes = version === 'v1' && signature ? base64Bytes(signature) : undefined;
    if (bytes && (await globalThis.crypto.subtle.verify('HMAC', key, bytes as BufferSource, signed))) verified = true;
  }
  if (!verified) throw new WebhookVerificationError('No signature of the delivery verifies with this secret.');
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('The body is not JSON.');
  }
  const { type, data } = (event ?? {}) as { type?: unknown; data?: unknown };
  if (typeof type !== 'string' || typeof data !== 'object' || data === null)
    throw new WebhookVerificationError('The body is not an event.');
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type))
    throw new UnknownWebhookEventError(event as { type: string; data: object } & Record<string, unknown>);
  return event as WebhookEvent;
}
