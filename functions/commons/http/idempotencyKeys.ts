import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationFailed } from '#domain/errors';
import { IDEMPOTENCY_KEY_SHAPE } from '#domain/limits';

/**
 * The Idempotency-Key header as a request carries it: a module of its own, light, so that every route
 * can record a key (the history names it) while only the POST functions carry the key store (idempotency.ts).
 */
const HEADER = 'idempotency-key';

/** The request's Idempotency-Key (POST only), or undefined; a malformed one is a 422. */
export function idempotencyKeyOf(event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'headers'>): string | undefined {
  if (event.httpMethod !== 'POST') return undefined;
  const key = event.headers[HEADER];
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_SHAPE.test(key))
    throw ValidationFailed.of('Idempotency-Key', 'is not a usable key; use 1 to 255 visible ASCII characters (a UUID serves well)', key);
  return key;
}

/** A PUT's or DELETE's Idempotency-Key: never used to replay (those writes are idempotent as they are), only recorded in the history; a malformed one is left out. */
export function recordedKeyOf(event: Pick<APIGatewayProxyEvent, 'headers'>): string | undefined {
  const key = event.headers[HEADER];
  return key !== undefined && IDEMPOTENCY_KEY_SHAPE.test(key) ? key : undefined;
}
