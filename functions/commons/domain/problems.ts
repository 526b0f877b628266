/**
 * The one problem catalogue: every `code` the service (handlers, the deployed gateway's own
 * responses and the local gateway) can answer, with its HTTP status and title. RFC 9457 `type`
 * is `TYPE_BASE + code`.
 */
export const TYPE_BASE = 'https://project-label-service.dev/problems/';

export const PROBLEMS = {
  bad_request: { status: 400, title: 'Bad Request' },
  malformed_json: { status: 400, title: 'Malformed JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload Too Large' },
  request_header_fields_too_large: { status: 431, title: 'Request Header Fields Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  validation_failed: { status: 422, title: 'Validation Failed' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  internal_error: { status: 500, title: 'Internal Server Error' },
  authorizer_error: { status: 500, title: 'Internal Server Error' },
  bad_gateway: { status: 502, title: 'Bad Gateway' },
  service_unavailable: { status: 503, title: 'Service Unavailable' },
  gateway_timeout: { status: 504, title: 'Gateway Timeout' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface FieldError {
  field: string;
  message: string;
}

/** Everything a problem+json answer says, before it is rendered. */
export interface Problem {
  code: ProblemCode;
  detail: string;
  headers?: Record<string, string>;
  errors?: FieldError[];
  /** Further members of the problem body (RFC 9457 extensions), e.g. `applied_task_uuids`. */
  extensions?: Record<string, unknown>;
}
