import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { PROBLEMS, type ProblemCode } from '#wire/problems';
import { AUTHORIZER_UNAVAILABLE, problemBody } from '#http/problem';
import { GATEWAY_UNAUTHORIZED_DETAIL, REFUSAL_CONTEXT_KEY } from '#wire/tokenRefusals';

/**
 * API Gateway's own rejections (before or instead of a handler) in the service's problem+json shape.
 * Codes, statuses and titles come from the one problem catalogue (wire/problems.ts); the body from
 * the same `problemBody()` the handlers use, with `$context.requestId` filled in by API Gateway.
 * Every response type is listed so the body's `status` always equals the HTTP status; DEFAULT_4XX/5XX
 * only catch types AWS adds later.
 */
export interface GatewayProblem {
  type: ResponseType;
  code: ProblemCode;
  detail: string;
  headers?: Record<string, string>;
}

/** No header, or one not in a token's form: API Gateway answers it without calling the authorizer. */
const UNAUTHORIZED = {
  code: 'unauthorized',
  detail: GATEWAY_UNAUTHORIZED_DETAIL,
  headers: { 'WWW-Authenticate': 'Bearer' },
} as const;
/**
 * The authorizer's Deny (an unknown, revoked or expired token): a 401 whose sentence is the one the
 * authorizer put in its context (wire/tokenRefusals.ts), which API Gateway substitutes here.
 */
const REFUSED_TOKEN = { ...UNAUTHORIZED, detail: `$context.authorizer.${REFUSAL_CONTEXT_KEY}` } as const;
const NO_ROUTE = { code: 'not_found', detail: 'No route serves this method and path.' } as const;
const AUTHORIZER_FAILED = { code: 'authorizer_error', detail: 'The authorizer failed.' } as const;

export const GATEWAY_PROBLEMS: readonly GatewayProblem[] = [
  { type: ResponseType.UNAUTHORIZED, ...UNAUTHORIZED },
  { type: ResponseType.ACCESS_DENIED, ...REFUSED_TOKEN },
  {
    type: ResponseType.THROTTLED,
    code: 'rate_limited',
    detail: 'Too many requests; retry after the time given in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    code: 'rate_limited',
    detail: 'The request quota is exhausted; retry later.',
    headers: { 'Retry-After': '60' },
  },
  // What API Gateway answers for a path or method no route serves.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, ...NO_ROUTE },
  { type: ResponseType.RESOURCE_NOT_FOUND, ...NO_ROUTE },
  { type: ResponseType.EXPIRED_TOKEN, ...UNAUTHORIZED },
  { type: ResponseType.INVALID_SIGNATURE, code: 'forbidden', detail: 'The request signature is not accepted.' },
  { type: ResponseType.INVALID_API_KEY, code: 'forbidden', detail: 'The API key is not accepted.' },
  // The web ACL's one rule (web-acl.ts) blocks an address over its rate: a retry a minute later may pass.
  {
    type: ResponseType.WAF_FILTERED,
    code: 'rate_limited',
    detail: 'Too many requests from this address; retry after the time given in Retry-After.',
    headers: { 'Retry-After': '60' },
  },
  { type: ResponseType.BAD_REQUEST_BODY, code: 'bad_request', detail: 'The request body is not accepted.' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: 'bad_request', detail: 'The request parameters are not accepted.' },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large', detail: 'The body exceeds the gateway limit.' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: 'unsupported_media_type', detail: 'Send the body as application/json.' },
  // The authorizer failed or timed out (a throttled token read, most likely): a retry may succeed.
  { type: ResponseType.AUTHORIZER_FAILURE, ...AUTHORIZER_UNAVAILABLE },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, ...AUTHORIZER_FAILED },
  { type: ResponseType.API_CONFIGURATION_ERROR, code: 'internal_error', detail: 'An unexpected error occurred.' },
  { type: ResponseType.INTEGRATION_FAILURE, code: 'bad_gateway', detail: 'The function failed to answer.' },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'gateway_timeout', detail: 'The function did not answer in time.' },
  { type: ResponseType.DEFAULT_4XX, code: 'bad_request', detail: 'The request is not accepted.' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error', detail: 'An unexpected error occurred.' },
];

export function gatewayStatus(p: GatewayProblem): number {
  return PROBLEMS[p.code].status;
}

/** The gateway response body template: the handlers' problem body with API Gateway's request id. */
export function gatewayProblemTemplate(p: GatewayProblem): string {
  return problemBody({ code: p.code, detail: p.detail }, '$context.requestId');
}
