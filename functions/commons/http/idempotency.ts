import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { sha256Url } from '#domain/digest';
import { claimIdempotencyKey, freeIdempotencyKey, keepAnswer, type KeptAnswer, type KeyedRequest } from '#domain/idempotency';
import { count } from '#observability/counts';
import { idempotencyKeyOf } from './idempotencyKeys';
import { problemFromError } from './problem';

export { idempotencyKeyOf };

/**
 * Idempotency-Key on POSTs, as HTTP sees it (domain/idempotency.ts keeps the keys): the header, what
 * makes two requests the same, and the answer kept and replayed (status, body as sent, Location) with
 * `Idempotent-Replayed: true`. Answers of 500 and above are not kept (the key is freed: a retry runs
 * afresh), nor are refusals that come before the request runs (401, 403, 400, 413, 415, input 422s).
 */

const REPLAYED_HEADERS = ['Content-Type', 'Location'];
const REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotentRequest {
  ws: string;
  /** Whose keys these are: the token's (its id). */
  owner: string;
  key: string;
  requestId: string;
  event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource' | 'pathParameters' | 'queryStringParameters'>;
  body: unknown;
  /** The answer shows a secret: kept sealed (sealedIdempotencyKeys). */
  sealAnswer?: boolean;
}

/** JSON with every object's members in code-point order: the same request however its body was spelled. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests the same: route, path, query and body (members in any order, any spacing). */
export function fingerprintOf(r: Pick<IdempotentRequest, 'event' | 'body'>): string {
  const { httpMethod, resource, pathParameters, queryStringParameters } = r.event;
  return sha256Url(canonical([httpMethod, resource, pathParameters ?? {}, queryStringParameters ?? {}, r.body ?? null]));
}

function toKept(answer: APIGatewayProxyResult): KeptAnswer {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = answer.headers?.[name];
    if (value !== undefined) headers[name] = String(value);
  }
  return { status: answer.statusCode, headers, body: answer.body };
}

function replay(kept: KeptAnswer): APIGatewayProxyResult {
  count('IdempotentReplays');
  return { statusCode: kept.status, headers: { ...kept.headers, [REPLAYED_HEADER]: 'true' }, body: kept.body };
}

/**
 * Runs `answer` at most once per key: claims the key, runs, keeps the answer (a problem of status
 * below 500 included, unless it says when to try again: it is kept, then rethrown for the error path to
 * answer the same bytes).
 */
export async function idempotent(r: IdempotentRequest, answer: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult> {
  const keyed: KeyedRequest = {
    ws: r.ws,
    owner: r.owner,
    key: r.key,
    requestId: r.requestId,
    fingerprint: fingerprintOf(r),
    sealAnswer: r.sealAnswer,
  };
  const kept = await claimIdempotencyKey(keyed);
  if (kept) return replay(kept);
  let result: APIGatewayProxyResult;
  try {
    result = await answer();
  } catch (error) {
    const problem = problemFromError(error, r.requestId);
    // A 5xx, or any answer that says when to try again (Retry-After: a workspace's send slots all held),
    // frees the key: the retry it asks for must run, not replay this answer for a day.
    if (problem.statusCode >= 500 || problem.headers?.['Retry-After'] !== undefined) await freeIdempotencyKey(keyed);
    else await keepAnswer(keyed, toKept(problem));
    throw error;
  }
  await keepAnswer(keyed, toKept(result));
  return result;
}

/**
 * What a POST route hands `endpoint()` (http/endpoint.ts) to take Idempotency-Keys: only those routes
 * carry this module (and the key store behind it), so a read's bundle never parses it at a cold start.
 */
export const idempotencyKeys = { keyOf: idempotencyKeyOf, run: idempotent };
export type IdempotencyKeys = typeof idempotencyKeys;

/** The same for a route whose answer shows a secret (a webhook's create, a rotation): its kept answer is sealed at rest. */
export const sealedIdempotencyKeys: IdempotencyKeys = {
  keyOf: idempotencyKeyOf,
  run: (r, answer) => idempotent({ ...r, sealAnswer: true }, answer),
};
