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
  conflict: { status: 409, title: 'Conflict', errorCode: 'CONFLICT' },
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

export interface FieldError {
  field: string;
  message: string;
}

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
