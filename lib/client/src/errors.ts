import type { Problem } from './generated.js';

/**
 * What a call throws. A problem the API answered (RFC 9457, `application/problem+json`) is an `ApiError`,
 * of the subclass its status says; a call that got no answer is a `ConnectionError`, a `TimeoutError`
 * (`timeoutMs` passed) or an `AbortError` (the caller's `signal`), never an `ApiError`.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The problem's `code` (`not_found`, `validation_failed`, ...; `unknown` when the answer was no problem document). */
  readonly code: Problem['code'] | 'unknown';
  readonly detail: string;
  /** The request's `X-Request-Id`: what support asks for. */
  readonly requestId: string | undefined;
  /** The whole problem body as answered. */
  readonly problem: Problem | undefined;
  /** The call's Idempotency-Key (a POST's): send it again (`idempotencyKey`) to get the first attempt's answer, never a second create. */
  readonly idempotencyKey: string | undefined;
  /** The answer's headers (empty when the error was made without an answer). */
  readonly headers: Headers;

  constructor(status: number, problem: Problem | undefined, requestId: string | undefined, idempotencyKey?: string, headers?: Headers) {
    const detail = problem?.detail ?? `HTTP ${status}`;
    super(`${status} ${problem?.code ?? 'error'}: ${detail}`);
    this.status = status;
    this.code = problem?.code ?? 'unknown';
    this.detail = detail;
    this.requestId = problem?.request_id ?? requestId;
    this.problem = problem;
    this.idempotencyKey = idempotencyKey;
    this.headers = headers ?? new Headers();
  }

  /** How long the answer asked to wait before trying again (`Retry-After`, in seconds or as a date), in seconds; undefined without one. */
  get retryAfter(): number | undefined {
    const value = this.headers.get('retry-after')?.trim();
    if (!value) return undefined;
    const seconds = /^\d+$/.test(value) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
    return Number.isNaN(seconds) ? undefined : Math.max(0, Math.ceil(seconds));
  }
}

export class ValidationError extends ApiError {
  override name = 'ValidationError';
  /** Each field refused, and why. */
  get errors(): Array<{ field: string; message: string }> {
    return this.problem?.errors ?? [];
  }
}
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class PermissionError extends ApiError {
  override name = 'PermissionError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
export class PreconditionFailedError extends ApiError {
  override name = 'PreconditionFailedError';
}
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  422: ValidationError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

/** The error of an answered problem. */
export function apiErrorOf(
  status: number,
  problem: Problem | undefined,
  requestId: string | undefined,
  idempotencyKey?: string,
  headers?: Headers,
): ApiError {
  const Kind = problem?.code === 'validation_failed' ? ValidationError : (BY_STATUS[status] ?? ApiError);
  return new Kind(status, problem, requestId, idempotencyKey, headers);
}

/**
 * A call that got no answer it can trust. A POST's carries the `Idempotency-Key` it sent: the request may
 * have gone through (its answer lost), so call again with that key (`idempotencyKey`) to get the first
 * attempt's answer, never a second create.
 */
export class NoAnswerError extends Error {
  /** The call's Idempotency-Key (a POST's). */
  idempotencyKey: string | undefined;
}
/** No answer came: the network failed (after the retries). */
export class ConnectionError extends NoAnswerError {
  override name = 'ConnectionError';
}
/** No answer came within `timeoutMs` (after the retries). */
export class TimeoutError extends NoAnswerError {
  override name = 'TimeoutError';
}
/** The caller's `signal` aborted the call. */
export class AbortError extends NoAnswerError {
  override name = 'AbortError';
}
/**
 * A success whose body is not the JSON its route answers (a captive portal's page, a proxy's): never a
 * resolved value of the wrong shape.
 */
export class UnexpectedResponseError extends NoAnswerError {
  override name = 'UnexpectedResponseError';
  constructor(
    readonly status: number,
    readonly contentType: string | undefined,
    readonly requestId: string | undefined,
  ) {
    super(`HTTP ${status} answered ${contentType ?? 'no content type'}, not the API's JSON: something between you and the API answered.`);
  }
}
/** A webhook delivery that does not verify: a bad or missing signature, a timestamp too far off, a body that is not an event. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}
/**
 * A delivery that verified (it is authentic) but whose `type` this version of the client does not know (an
 * event type the service added since): `event` holds it, unchecked. Not a WebhookVerificationError: a
 * receiver acknowledges it (a 2xx) or upgrades; refusing it would fail every delivery of the new type.
 */
export class UnknownWebhookEventError extends Error {
  override name = 'UnknownWebhookEventError';
  readonly event: { type: string; data: object } & Record<string, unknown>;

  constructor(event: { type: string; data: object } & Record<string, unknown>) {
    super(`The delivery verified, but its type "${event.type}" is unknown to this version of the client.`);
    this.event = event;
  }
}
