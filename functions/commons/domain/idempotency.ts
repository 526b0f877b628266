import { claimKey, completeKey, releaseKey, type Claim, type KeyRef, type StoredAnswer } from '#store/idempotency';
import { isSealed, type SealContext, secretsAtRest, storedText } from '#store/sealing';
import { count } from '#observability/counts';
import { logger } from '#observability/log';
import { sourceMapped } from '#observability/stacks';
import { sha256Url } from './digest';
import { Conflict, ValidationFailed } from './errors';

/**
 * Idempotency keys (Stripe's model): the first request with a key runs and its answer is kept for a
 * day; the same key with the same request gets that answer again; with a different request it is a
 * 422; while the first still runs, a 409 with Retry-After. Keys belong to one token in one workspace.
 */
export type KeptAnswer = StoredAnswer;

export interface KeyedRequest {
  ws: string;
  /** Whose keys these are: the token's id. */
  owner: string;
  key: string;
  /** What makes two requests the same (http/idempotency.ts). */
  fingerprint: string;
  /** The request claiming the key: only it may keep an answer under it or free it. */
  requestId: string;
  /** The answer shows a secret (a webhook's, at its create or rotation): it is kept sealed (store/sealing.ts). */
  sealAnswer?: boolean | undefined;
}

const TTL_SECONDS = 24 * 3600;
/** Longer than any request can run (functions time out at 20 s, API Gateway at 29 s). */
const LEASE_SECONDS = 30;

const refOf = (r: KeyedRequest): KeyRef => ({
  ws: r.ws,
  hash: sha256Url(`${r.owner}\n${r.key}`),
  holder: r.requestId,
});

const keyReused = (key: string) =>
  new ValidationFailed(
    [{ field: 'Idempotency-Key', message: 'was already used with a different request; use a new key for a new request', value: key }],
    'key_reused',
  );

/**
 * The first request usually finishes in milliseconds: a retry a second later mostly gets its answer
 * (and a lease left by a dead request ends within LEASE_SECONDS).
 */
const IN_USE_RETRY_SECONDS = 1;
function keyInUse(): Conflict {
  return new Conflict('A request with this Idempotency-Key is still running; retry after it finishes.', IN_USE_RETRY_SECONDS, 'key_in_use');
}

/**
 * Claims the key for this request: `undefined` when the request is to run (it then keeps or frees
 * the key), the kept answer when it already ran; a 422 when the key was used for another request,
 * a 409 while that request still runs.
 */
export async function claimIdempotencyKey(r: KeyedRequest): Promise<KeptAnswer | undefined> {
  const kept = settled(await claimKey(refOf(r), r.fingerprint, LEASE_SECONDS, TTL_SECONDS), r);
  return kept && isSealed(kept.body) ? { ...kept, body: await secretsAtRest().open(kept.body, answerContext(refOf(r))) } : kept;
}

/** What a sealed answer is bound to: its key's record (copied under another key, it does not open). */
const answerContext = (ref: KeyRef): SealContext => ({ workspace: ref.ws, item: `idempotency-answer ${ref.ws} ${ref.hash}` });

function settled(claim: Claim, r: KeyedRequest): KeptAnswer | undefined {
  if (claim.state === 'claimed') return undefined;
  if (claim.fingerprint !== r.fingerprint) throw keyReused(r.key);
  if (claim.state === 'pending') throw keyInUse();
  return claim.answer;
}

/**
 * Keeps the answer under the key (an answer too large to keep frees it instead). Never fails the
 * request that ran: the client has its answer; should the write fail, the key's lease frees it.
 */
export async function keepAnswer(r: KeyedRequest, answer: KeptAnswer): Promise<void> {
  try {
    const ref = refOf(r);
    const kept = r.sealAnswer ? { ...answer, body: storedText(await secretsAtRest().seal(answer.body, answerContext(ref))) } : answer;
    if ((await completeKey(ref, kept)) === 'too-large') await releaseKey(ref);
  } catch (error) {
    // The client has its answer and nothing it asked for is undone, but once the lease ends a retry
    // with this key would run again: said in the log and counted, for an alarm to catch.
    count('IdempotencyKeepFailures');
    logger.error('An Idempotency-Key answer could not be kept; a retry after the lease would run again', {
      error: sourceMapped(error as Error),
      workspace: r.ws,
    });
  }
}

/** Frees the key after an answer worth retrying (5xx): the next request with it runs afresh. */
export async function freeIdempotencyKey(r: KeyedRequest): Promise<void> {
  try {
    await releaseKey(refOf(r));
  } catch (error) {
    // The lease frees it: until then a retry with the key is told 409.
    count('IdempotencyKeepFailures');
    logger.warn('An Idempotency-Key could not be freed; its lease frees it', { error: sourceMapped(error as Error), workspace: r.ws });
  }
}
