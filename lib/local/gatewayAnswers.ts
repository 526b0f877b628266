import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import { methodNotAllowedDetail } from '#http/allowedMethods';
import { CORS_PREFLIGHT } from '#http/cors';
import { NO_STORE_HEADERS } from '#http/headers';
import { problemResponse } from '#http/problem';
import type { ProblemCode } from '#wire/problems';
import { REFUSAL_CONTEXT_KEY, refusalDetail, type TokenRefusal } from '#wire/tokenRefusals';

/**
 * The local gateway's own answers, as API Gateway's gateway responses and mock methods give them
 * (lib/cdk/gateway-responses.ts, lib/cdk/method-not-allowed.ts): problem+json with the same headers.
 */

/** The gateway's own rejections, with the headers the deployed gateway responses carry too. */
export function gatewayProblem(code: ProblemCode, detail: string, requestId: string, headers?: Record<string, string>) {
  return problemResponse({ code, detail, headers: { 'Access-Control-Allow-Origin': '*', ...NO_STORE_HEADERS, ...headers } }, requestId);
}

/**
 * A 401 saying why: the header's fault (which API Gateway answers before the authorizer runs; there,
 * one sentence covers the three), or the token's, as the authorizer's Deny names it in its context.
 */
export function refusedToken(refusal: TokenRefusal | APIGatewayAuthorizerResult, requestId: string): APIGatewayProxyResult {
  const said = typeof refusal === 'string' ? refusalDetail(refusal) : refusal.context?.[REFUSAL_CONTEXT_KEY];
  const detail = typeof said === 'string' && said ? said : refusalDetail('unknown');
  return gatewayProblem('unauthorized', detail, requestId, { 'WWW-Authenticate': 'Bearer' });
}

/** A path a route serves, asked with another method: 405 naming the ones it takes, in Allow too. */
export function methodNotAllowed(method: string, template: string, allowed: readonly string[], requestId: string) {
  return gatewayProblem('method_not_allowed', methodNotAllowedDetail(method, template, allowed), requestId, { Allow: allowed.join(', ') });
}

/** The preflight answer of API Gateway's CORS mock integration, for any path a route serves. */
export function preflight(): APIGatewayProxyResult {
  return {
    statusCode: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': CORS_PREFLIGHT.allowMethods.join(','),
      'Access-Control-Allow-Headers': CORS_PREFLIGHT.allowHeaders.join(','),
      'Access-Control-Max-Age': String(CORS_PREFLIGHT.maxAgeSeconds),
    },
    body: '',
  };
}

/** Node's own answers to a request it cannot parse, in the service's problem+json shape. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const result =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? gatewayProblem('request_header_fields_too_large', 'The request headers are too large.', requestId)
      : gatewayProblem('bad_request', 'The request could not be parsed.', requestId);
  const head = [`HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode]}`, `x-amzn-RequestId: ${requestId}`];
  for (const [k, v] of Object.entries(result.headers ?? {})) head.push(`${k}: ${v}`);
  head.push(`Content-Length: ${Buffer.byteLength(result.body)}`, 'Connection: close');
  socket.end(`${head.join('\r\n')}\r\n\r\n${result.body}`);
}
