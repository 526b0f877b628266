import { UnknownWebhookEventError, WebhookVerificationError } from './errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from './generated.js';
import { webCrypto } from './platform.js';

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

/** The most signatures a header may carry (a rotation signs with two secrets): more is refused before any is checked. */
const MAX_SIGNATURES = 8;
/** An HMAC-SHA256 is 32 bytes: a candidate of another length is no signature. */
const SIGNATURE_BYTES = 32;

/** Equal bytes, in time that does not depend on where they differ. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const bytesOf = (body: string | Uint8Array | ArrayBuffer): Uint8Array =>
  typeof body === 'string' ? encoder.encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);

/**
 * Verifies a webhook delivery to the Standard Webhooks specification, with the platform's own crypto
 * (Web Crypto: Node 20+, browsers, Deno, Bun): an HMAC-SHA256 of `id.timestamp.body` under the secret
 * (`whsec_` + base64), computed once and compared in constant time with each signature the header
 * carries (at most 8, each of 32 bytes: a rotation signs with each secret in its grace; one good one is
 * enough); a timestamp more than `toleranceSeconds` (default 300) off is refused. `rawBody` is the body as
 * received, before any JSON parsing: a string, a Buffer, a Uint8Array or an ArrayBuffer. Returns the event,
 * typed by its `type`; throws a WebhookVerificationError on anything else (an UnknownWebhookEventError,
 * carrying the event, when it verified but its type is newer than this client).
 */
export async function verifyWebhook(
  secret: string,
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  options: { now?: Date; toleranceSeconds?: number } = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (!(Number.isFinite(tolerance) && tolerance >= 0))
    throw new TypeError(`toleranceSeconds must be a number of seconds, not ${tolerance}`);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature').split(' ');
  if (signatures.length > MAX_SIGNATURES)
    throw new WebhookVerificationError(
      `The webhook-signature header carries ${signatures.length} signatures; at most ${MAX_SIGNATURES} are checked.`,
    );
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!(Math.abs(now - seconds) <= tolerance))
    throw new WebhookVerificationError(`The webhook-timestamp is more than ${tolerance} seconds off.`);
  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('The secret is not a whsec_ secret.');
  const candidates = signatures.flatMap((part) => {
    const [version, signature] = part.split(',', 2);
    const bytes = version === 'v1' && signature ? base64Bytes(signature) : undefined;
    return bytes?.length === SIGNATURE_BYTES ? [bytes] : [];
  });
  if (candidates.length === 0) throw new WebhookVerificationError('No signature of the delivery verifies with this secret.');
  const subtle = (await webCrypto())?.subtle;
  if (!subtle) throw new TypeError('verifyWebhook needs Web Crypto (crypto.subtle): a secure context in a browser, Node 18 or later.');
  const key = await subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const body = bytesOf(rawBody);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const expected = new Uint8Array(await subtle.sign('HMAC', key, signed as BufferSource));
  // Every candidate is compared (no early exit), so the time says nothing of which one matched.
  const verified = candidates.reduce((found, candidate) => sameBytes(candidate, expected) || found, false);
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
