import {
  Busy,
  Conflict,
  DomainError,
  Gone,
  NotFound,
  PartlyApplied,
  PreconditionFailed,
  ValidationFailed,
  type FieldError,
} from '#domain/errors';
/**
 * The one problem catalogue: every `code` the service (handlers, the deployed gateway's own
 * responses and the local gateway) can answer, with its HTTP status, title and the upper-case
 * `error_code` GitScrum clients choose their messages by (a not_found names its resource:
 * PROJECT_NOT_FOUND, LABEL_NOT_FOUND). RFC 9457 `type` is `TYPE_BASE + code`.
 */
export const TYPE_BASE = 'https://project-label-service.dev/problems/';

export const PROBLEMS = {
  bad_request: { status: 400, title: 'Bad Request', errorCode: 'BAD_REQUEST' },
  malformed_json: { status: 400, title: 'Malformed JSON', errorCode: 'INVALID_JSON' },
  unauthorized: { status: 401, title: 'Unauthorized', errorCode: 'TOKEN_INVALID' },
  forbidden: { status: 403, title: 'Forbidden', errorCode: 'FORBIDDEN' },
  not_found: { status: 404, title: 'Not Found', errorCode: 'NOT_FOUND' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed', errorCode: 'METHOD_NOT_ALLOWED' },
  conflict: { status: 409, title: 'Conflict', errorCode: 'CONFLICT' },
  gone: { status: 410, title: 'Gone', errorCode: 'SYNC_TOKEN_EXPIRED' },
  precondition_failed: { status: 412, title: 'Precondition Failed', errorCode: 'PRECONDITION_FAILED' },
  payload_too_large: { status: 413, title: 'Payload Too Large', errorCode: 'PAYLOAD_TOO_LARGE' },
  request_header_fields_too_large: { status: 431, title: 'Request Header Fields Too Large', errorCode: 'HEADERS_TOO_LARGE' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type', errorCode: 'UNSUPPORTED_MEDIA_TYPE' },
  validation_failed: { status: 422, title: 'Validation Failed', errorCode: 'VALIDATION_ERROR' },
  rate_limited: { status: 429, title: 'Too Many Requests', errorCode: 'RATE_LIMIT_EXCEEDED' },
  internal_error: { status: 500, title: 'Internal Server Error', errorCode: 'INTERNAL_ERROR' },
  authorizer_error: { status: 500, title: 'Internal Server Error', errorCode: 'AUTHORIZER_ERROR' },
  bad_gateway: { status: 502, title: 'Bad Gateway', errorCode: 'BAD_GATEWAY' },
  service_unavailable: { status: 503, title: 'Service Unavailable', errorCode: 'SERVICE_UNAVAILABLE' },
  gateway_timeout: { status: 504, title: 'Gateway Timeout', errorCode: 'GATEWAY_TIMEOUT' },
} as const satisfies Record<string, { status: number; title: string; errorCode: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** Everything a problem+json answer says, before it is rendered. */
export interface Problem {
  code: ProblemCode;
  detail: string;
  /** A more specific GitScrum error code than the catalogue's (e.g. PROJECT_NOT_FOUND). */
  errorCode?: string;
  headers?: Record<string, string>;
  errors?: FieldError[];
  /** Further members of the problem body (RFC 9457 extensions), e.g. `applied_task_uuids`. */
  extensions?: Record<string, unknown>;
}

/** A request the edge refuses before any use case runs (no token, a body that is not JSON, ...). */
export class Refused extends Error {
  constructor(
    readonly code: ProblemCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message: string) => new Refused('unauthorized', message, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (message: string) => new Refused('forbidden', message);

/** The GitScrum error_code of a domain error more specific than its problem's. */
function errorCodeOf(error: DomainError): string | undefined {
  if (error instanceof NotFound && error.subject) return `${error.subject.toUpperCase()}_NOT_FOUND`;
  if (error instanceof Conflict && error.reason === 'key_in_use') return 'IDEMPOTENCY_KEY_IN_USE';
  if (error instanceof ValidationFailed && error.reason === 'key_reused') return 'IDEMPOTENCY_KEY_REUSED';
  return undefined;
}

const retryAfter = (seconds: number | undefined): Record<string, string> =>
  seconds === undefined ? {} : { 'Retry-After': String(seconds) };

/** The problem code of each domain error, and the headers it is answered with. */
function problemOfDomain(error: DomainError): Problem {
  const base = { detail: error.message, ...(errorCodeOf(error) ? { errorCode: errorCodeOf(error) } : {}) };
  if (error instanceof NotFound) return { ...base, code: 'not_found' };
  if (error instanceof Conflict) return { ...base, code: 'conflict', headers: retryAfter(error.retryAfterSeconds) };
  if (error instanceof PreconditionFailed) return { ...base, code: 'precondition_failed' };
  if (error instanceof Gone) return { ...base, code: 'gone' };
  if (error instanceof ValidationFailed) return { ...base, code: 'validation_failed', errors: error.errors };
  if (error instanceof Busy) return { ...base, code: 'service_unavailable', headers: retryAfter(error.retryAfterSeconds) };
  if (error instanceof PartlyApplied) {
    const cause = problemOfDomain(error.failure);
    return { ...cause, detail: error.message, extensions: { ...cause.extensions, applied_task_uuids: error.appliedTasks } };
  }
  return { code: 'internal_error', detail: 'An unexpected error occurred.' };
}

/**
 * Any thrown value, already in the domain's words, as the Problem to answer: a refusal of the edge or
 * a domain error as its catalogue entry, anything else a 500 that says nothing of its cause (no stack,
 * AWS error name or key ever reaches a client).
 */
export function toProblem(error: unknown): Problem {
  if (error instanceof Refused) return { code: error.code, detail: error.message || PROBLEMS[error.code].title, headers: error.headers };
  if (error instanceof DomainError) return problemOfDomain(error);
  return { code: 'internal_error', detail: 'An unexpected error occurred.' };
}
