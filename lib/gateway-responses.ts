import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { problemResponse } from '../functions/commons/problem.ts';

/**
 * API Gateway's own rejections (before or instead of a handler) in the service's problem+json shape.
 * The body comes from the same `problemResponse()` the handlers use; `$context.requestId` is filled
 * in by API Gateway. Every response type is listed so the body's `status` always equals the HTTP
 * status; DEFAULT_4XX/5XX only catch types AWS adds later.
 */
export interface GatewayProblem {
  type: ResponseType;
  status: number;
  code: string;
  title: string;
  detail: string;
  headers?: Record<string, string>;
}

export const GATEWAY_PROBLEMS: readonly GatewayProblem[] = [
  {
    type: ResponseType.UNAUTHORIZED,
    status: 401,
    code: 'unauthorized',
    title: 'Unauthorized',
    detail: 'A valid bearer token is required.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  },
  { type: ResponseType.ACCESS_DENIED, status: 403, code: 'forbidden', title: 'Forbidden', detail: 'The token is not allowed to call this API.' },
  {
    type: ResponseType.THROTTLED,
    status: 429,
    code: 'rate_limited',
    title: 'Too Many Requests',
    detail: 'Too many requests; retry after the time given in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    status: 429,
    code: 'rate_limited',
    title: 'Too Many Requests',
    detail: 'The request quota is exhausted; retry later.',
    headers: { 'Retry-After': '60' },
  },
  // What API Gateway answers for a path or method no route serves.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: 'not_found', title: 'Not Found', detail: 'No route serves this method and path.' },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, code: 'not_found', title: 'Not Found', detail: 'No route serves this method and path.' },
  { type: ResponseType.EXPIRED_TOKEN, status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'A valid bearer token is required.', headers: { 'WWW-Authenticate': 'Bearer' } },
  { type: ResponseType.INVALID_SIGNATURE, status: 403, code: 'forbidden', title: 'Forbidden', detail: 'The request signature is not accepted.' },
  { type: ResponseType.INVALID_API_KEY, status: 403, code: 'forbidden', title: 'Forbidden', detail: 'The API key is not accepted.' },
  { type: ResponseType.WAF_FILTERED, status: 403, code: 'forbidden', title: 'Forbidden', detail: 'The request was blocked.' },
  { type: ResponseType.BAD_REQUEST_BODY, status: 400, code: 'bad_request', title: 'Bad Request', detail: 'The request body is not accepted.' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, status: 400, code: 'bad_request', title: 'Bad Request', detail: 'The request parameters are not accepted.' },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, code: 'payload_too_large', title: 'Payload Too Large', detail: 'The body exceeds the gateway limit.' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415, code: 'unsupported_media_type', title: 'Unsupported Media Type', detail: 'Send the body as application/json.' },
  { type: ResponseType.AUTHORIZER_FAILURE, status: 500, code: 'authorizer_error', title: 'Internal Server Error', detail: 'The authorizer failed.' },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, status: 500, code: 'authorizer_error', title: 'Internal Server Error', detail: 'The authorizer failed.' },
  { type: ResponseType.API_CONFIGURATION_ERROR, status: 500, code: 'internal_error', title: 'Internal Server Error', detail: 'An unexpected error occurred.' },
  { type: ResponseType.INTEGRATION_FAILURE, status: 502, code: 'bad_gateway', title: 'Bad Gateway', detail: 'The function failed to answer.' },
  { type: ResponseType.INTEGRATION_TIMEOUT, status: 504, code: 'gateway_timeout', title: 'Gateway Timeout', detail: 'The function did not answer in time.' },
  { type: ResponseType.DEFAULT_4XX, status: 400, code: 'bad_request', title: 'Bad Request', detail: 'The request is not accepted.' },
  { type: ResponseType.DEFAULT_5XX, status: 500, code: 'internal_error', title: 'Internal Server Error', detail: 'An unexpected error occurred.' },
];

/** The gateway response body template: the handlers' problem body with API Gateway's request id. */
export function gatewayProblemTemplate(p: GatewayProblem): string {
  return problemResponse({ status: p.status, code: p.code, title: p.title, detail: p.detail, requestId: '$context.requestId' }).body;
}
