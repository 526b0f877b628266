import type { APIGatewayProxyResult } from 'aws-lambda';
import { inDomainTerms } from '#domain/failures';
import { PROBLEMS, TYPE_BASE, toProblem, type Problem } from '#wire/problems';

/** The problem+json body of a Problem: one shape for handlers, the local gateway and the deployed gateway. */
export function problemBody(p: Problem, requestId: string): string {
  const { status, title, errorCode } = PROBLEMS[p.code];
  const body: Record<string, unknown> = {
    ...p.extensions,
    type: TYPE_BASE + p.code,
    title,
    status,
    detail: p.detail,
    message: p.detail,
    code: p.code,
    error_code: p.errorCode ?? errorCode,
    request_id: requestId,
  };
  if (p.errors) body.errors = p.errors;
  return JSON.stringify(body);
}

export function problemResponse(p: Problem, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: PROBLEMS[p.code].status,
    headers: { 'Content-Type': 'application/problem+json', ...p.headers },
    body: problemBody(p, requestId),
  };
}

/** Maps any thrown value to a problem response. Never leaks stack traces, AWS error names or keys. */
export function problemFromError(error: unknown, requestId: string): APIGatewayProxyResult {
  return problemResponse(problemOf(error), requestId);
}

/** The problem a thrown value is answered with, in the domain's words first. */
export function problemOf(error: unknown): Problem {
  return toProblem(inDomainTerms(error));
}

/**
 * What a client gets when the authorizer cannot answer (its token read throttled, or the function
 * failing): DynamoDB busy is a 503 with Retry-After, the same from API Gateway's AUTHORIZER_FAILURE
 * response (lib/cdk/gateway-responses.ts) as from the local gateway, never a 500.
 */
export const AUTHORIZER_UNAVAILABLE = {
  code: 'service_unavailable',
  detail: 'The token could not be checked just now; retry after the time given in Retry-After.',
  headers: { 'Retry-After': '1' },
} as const;
