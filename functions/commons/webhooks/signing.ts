import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures: the secret is `whsec_` + base64 of its key bytes; each attempt is
 * signed as base64(HMAC-SHA256(key, `<webhook-id>.<webhook-timestamp>.<body>`)), sent as `v1,<sig>`,
 * several signatures (a rotation's old and new secret) separated by spaces. Any Standard Webhooks
 * library verifies them.
 */
const PREFIX = 'whsec_';
const KEY_BYTES = 32;

/** A secret a caller may give a webhook: `whsec_` + base64 (standard, padded) of 24 to 64 random bytes. */
export function isUsableSecret(text: string): boolean {
  if (!text.startsWith(PREFIX)) return false;
  const encoded = text.slice(PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 24 && key.length <= 64 && key.toString('base64') === encoded;
}

export function newSecret(): string {
  return `${PREFIX}${randomBytes(KEY_BYTES).toString('base64')}`;
}

function sign(secret: string, content: string): string {
  // Only a secret in clear signs (never a sealed value: store/sealing.ts opens them first).
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook is signed with its secret in clear (whsec_...), never a sealed one');
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
}

/** The Standard Webhooks headers of one attempt of one delivery, signed by each secret given. */
export function signedHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const content = `${id}.${timestampSeconds}.${body}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, content)).join(' '),
  };
}
