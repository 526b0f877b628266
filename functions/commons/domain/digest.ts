import { createHash } from 'node:crypto';

/** SHA-256 of a text as base64url (43 characters): key parts, entity tags, fingerprints. */
export function sha256Url(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
