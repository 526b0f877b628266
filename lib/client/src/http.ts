import { AbortError, apiErrorOf, ConnectionError, NoAnswerError, TimeoutError, UnexpectedResponseError } from './errors.js';
import type { Problem } from './generated.js';
import { type AttemptInfo, attemptInfo, type RetryInfo } from './hooks.js';
import { inBrowser, randomKey } from './platform.js';
import type { OperationSpec } from './spec.js';

/** How a client reaches the API (createClient's options, defaults filled in). */
export interface Config {
  baseUrl: string;
  token: string;
  workspace: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  onRetry: ((info: RetryInfo) => void) | undefined;
  onAttempt: ((info: AttemptInfo) => void) | undefined;
  userAgent: string;
}

/** The options a call takes: anything else is a mistake said at once (a misspelt `ifMatch` would write unguarded). */
const CALL_OPTIONS: ReadonlySet<string> = new Set(['ifMatch', 'idempotencyKey', 'signal', 'timeoutMs', 'maxRetries', 'ifNoneMatch']);

/** What one call may add: preconditions, its own idempotency key, a signal, its own timeout and retries. */
export interface CallOptions {
  /** Sent as `If-Match`: the write happens only on the version with this entity tag (else a PreconditionFailedError). */
  ifMatch?: string;
  /** The `Idempotency-Key` of a POST (default: one made for the call, the same on each of its attempts). */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Each attempt's time limit (default: the client's). */
  timeoutMs?: number | undefined;
  /** Retries of this call (default: the client's). */
  maxRetries?: number | undefined;
  /** Sent as `If-None-Match` on a tagged read: nothing changed since that tag answers `{ notModified: true, etag }`, not an error. */
  ifNoneMatch?: string | undefined;
}

/** An answer: its status, its body (none on a 304), its entity tag and its headers. */
export interface Answer {
  status: number;
  body: unknown;
  etag: string | undefined;
  headers: Headers;
}

/** Statuses worth another attempt: the request timed out, was throttled, or met a server or gateway failure. */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);
/**
 * A 409 that says an earlier attempt of this call, under the same Idempotency-Key, is still running (it
 * timed out on the client's side, not the server's): asked again after its Retry-After until it finishes,
 * for up to KEY_IN_USE_MS, apart from the call's retries (a request runs at most 29 s behind API Gateway,
 * and a key whose request died is freed within 30 s).
 */
const keyInUse = (status: number, problem: Problem | undefined) => status === 409 && problem?.error_code === 'IDEMPOTENCY_KEY_IN_USE';
const KEY_IN_USE_MS = 35_000;
/** A `Retry-After` longer than this is not waited for: the error goes to the caller, who may choose. */
const LONGEST_RETRY_AFTER_MS = 60_000;

/** The request's URL: path parameters in the path, the query's in the query string (a list: the key repeated). */
function urlOf(config: Config, spec: OperationSpec, params: Record<string, unknown>): string {
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`${name} is required`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const name of spec.params.query) {
    const value = name === 'company_slug' ? (params[name] ?? config.workspace) : params[name];
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined && v !== null) query.append(name, String(v));
  }
  const text = query.toString();
  return `${config.baseUrl.replace(/\/+$/, '')}${path}${text ? `?${text}` : ''}`;
}

/** The JSON body: the body's parameters that were given (a DELETE given none sends none; a route without a body, never). */
function bodyOf(spec: OperationSpec, params: Record<string, unknown>): string | undefined {
  const given = spec.params.body.filter((name) => params[name] !== undefined);
  if (spec.params.body.length === 0 || (given.length === 0 && spec.method === 'DELETE')) return undefined;
  return JSON.stringify(Object.fromEntries(given.map((name) => [name, params[name]])));
}

function checkNames(spec: OperationSpec, params: Record<string, unknown>) {
  const known = new Set([...spec.params.path, ...spec.params.query, ...spec.params.body]);
  const unknown = Object.keys(params).filter((name) => !known.has(name) && params[name] !== undefined);
  if (unknown.length) throw new TypeError(`${spec.method} ${spec.path} takes no ${unknown.join(', ')}`);
}

/** How long to wait before attempt `n` (1-based retry): the answer's `Retry-After`, else 0.5 s doubling to 8 s, less up to a quarter at random. */
function waitMs(retry: number, retryAfter: string | null): number | undefined {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (!Number.isNaN(ms)) return ms > LONGEST_RETRY_AFTER_MS ? undefined : Math.max(0, ms);
  }
  return Math.min(500 * 2 ** (retry - 1), 8000) * (1 - Math.random() / 4);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError('The call was aborted.'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('The call was aborted.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends one call: attempts it, and again (up to its retries) after a network failure, a timeout or a
 * retryable status; a POST only under its Idempotency-Key, the same on every attempt, so a create whose
 * answer was lost is never made twice. A problem answered is thrown as its ApiError.
 */
export async function send(
  config: Config,
  spec: OperationSpec,
  params: Record<string, unknown>,
  options: CallOptions = {},
): Promise<Answer> {
  checkNames(spec, params);
  const unknown = Object.keys(options).filter((name) => !CALL_OPTIONS.has(name));
  if (unknown.length) throw new TypeError(`${unknown.join(', ')}: not an option of a call (${[...CALL_OPTIONS].join(', ')})`);
  const url = urlOf(config, spec, params);
  const body = bodyOf(spec, params);
  const headers: Record<string, string> = { authorization: `Bearer ${config.token}`, accept: 'application/json' };
  // Off the browser only: a page's fetch keeps its own User-Agent (and would make the header a CORS preflight's).
  if (!inBrowser()) headers['user-agent'] = config.userAgent;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const idempotencyKey = spec.idempotent ? (options.idempotencyKey ?? (await randomKey())) : undefined;
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  // An `ifMatch` given as undefined (an answer that lost its ETag on the way) would send the write unguarded.
  if ('ifMatch' in options && typeof options.ifMatch !== 'string')
    throw new TypeError('ifMatch is not an entity tag: read the resource again');
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  if (options.ifNoneMatch !== undefined) headers['if-none-match'] = options.ifNoneMatch;
  const retries = spec.method === 'POST' && !spec.idempotent ? 0 : (options.maxRetries ?? config.maxRetries);
  try {
    return await attempts(config, url, { method: spec.method, headers, body }, retries, idempotencyKey, options);
  } catch (error) {
    // Whatever stopped the call, its key goes with it: the caller can recover a lost create by sending it again.
    if (error instanceof NoAnswerError) error.idempotencyKey = idempotencyKey;
    throw error;
  }
}

async function attempts(
  config: Config,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  retries: number,
  idempotencyKey: string | undefined,
  options: CallOptions,
): Promise<Answer> {
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  let inUseSince: number | undefined;
  let sent = 0;
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= retries;
    const started = Date.now();
    const outcome = await attemptOnce(config, url, init, timeoutMs, options.signal);
    config.onAttempt?.(attemptInfo(init.method, url, ++sent, started, outcome));
    if (outcome instanceof Error) {
      if (last) throw outcome;
      const wait = waitMs(attempt + 1, null)!;
      config.onRetry?.({ method: init.method, url, attempt: attempt + 1, waitMs: wait, error: outcome });
      await sleep(wait, options.signal);
      continue;
    }
    const { response } = outcome;
    const etag = response.headers.get('etag') ?? undefined;
    if (response.status === 304) return { status: 304, body: undefined, etag, headers: response.headers };
    if (response.ok) {
      // Every success of the API is JSON: anything else came from something between (a captive portal, a proxy).
      const type = response.headers.get('content-type') ?? undefined;
      if (outcome.json === undefined || !/^application\/(problem\+)?json\b/i.test(type ?? ''))
        throw new UnexpectedResponseError(response.status, type, response.headers.get('x-request-id') ?? undefined);
      return { status: response.status, body: outcome.json, etag, headers: response.headers };
    }
    const problem = outcome.json as Problem | undefined;
    const retryAfter = response.headers.get('retry-after');
    if (idempotencyKey && keyInUse(response.status, problem) && Date.now() - (inUseSince ??= Date.now()) < KEY_IN_USE_MS) {
      attempt--; // not one of the call's retries
      await sleep(waitMs(1, retryAfter) ?? 1000, options.signal);
      continue;
    }
    const wait = RETRYABLE.has(response.status) && !last ? waitMs(attempt + 1, retryAfter) : undefined;
    if (wait === undefined)
      throw apiErrorOf(response.status, problem, response.headers.get('x-request-id') ?? undefined, idempotencyKey, response.headers);
    config.onRetry?.({ method: init.method, url, attempt: attempt + 1, waitMs: wait, status: response.status });
    await sleep(wait, options.signal);
  }
}

/** One attempt: the answer and its parsed body, or the error that stands for no answer. */
async function attemptOnce(
  config: Config,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ response: Response; json: unknown } | ConnectionError | TimeoutError> {
  if (signal?.aborted) throw new AbortError('The call was aborted.');
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { body, ...rest } = init;
    const response = await config.fetch(url, { ...rest, ...(body === undefined ? {} : { body }), signal: controller.signal });
    const text = response.status === 304 ? '' : await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { response, json };
  } catch (error) {
    if (signal?.aborted) throw new AbortError('The call was aborted.');
    if (timedOut) return new TimeoutError(`No answer within ${timeoutMs} ms.`);
    return new ConnectionError(`The request failed: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
