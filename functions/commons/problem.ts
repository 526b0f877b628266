import type { APIGatewayProxyResult } from 'aws-lambda';
import { HttpProblem, ServiceUnavailable, ValidationFailed } from './errors';

const TYPE_BASE = 'https://project-label-service.dev/problems/';

export interface ProblemInput {
  status: number;
  code: string;
  title: string;
  detail: string;
  requestId: string;
  headers?: Record<string, string>;
  errors?: { field: string; message: string }[];
}

/** The one problem+json body shape used by handlers, the local gateway and the deployed gateway. */
export function problemResponse(p: ProblemInput): APIGatewayProxyResult {
  const body: Record<string, unknown> = {
    type: TYPE_BASE + p.code,
    title: p.title,
    status: p.status,
    detail: p.detail,
    message: p.detail,
    code: p.code,
    request_id: p.requestId,
  };
  if (p.errors) body.errors = p.errors;
  return {
    statusCode: p.status,
    headers: { 'Content-Type': 'application/problem+json', ...p.headers },
    body: JSON.stringify(body),
  };
}

/** AWS SDK errors that mean "the database is overloaded or briefly unavailable: retry later". */
const RETRYABLE_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const meta = (error as { $metadata?: { httpStatusCode?: number }; $retryable?: unknown }).$metadata;
  if (RETRYABLE_AWS_ERRORS.has(error.name)) return true;
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    return reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded');
  }
  if (meta?.httpStatusCode !== undefined && meta.httpStatusCode >= 500) return true;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes((error as { code?: string }).code ?? '');
}

/** Maps any thrown value to a problem response. Never leaks stack traces, AWS error names or keys. */
export function problemFromError(error: unknown, requestId: string): APIGatewayProxyResult {
  if (!(error instanceof HttpProblem) && isTransient(error)) {
    return problemFromError(new ServiceUnavailable(), requestId);
  }
  if (error instanceof HttpProblem) {
    return problemResponse({
      status: error.status,
      code: error.code,
      title: error.title,
      detail: error.message || error.title,
      requestId,
      headers: error.headers,
      errors: error instanceof ValidationFailed ? error.errors : undefined,
    });
  }
  return problemResponse({
    status: 500,
    code: 'internal_error',
    title: 'Internal Server Error',
    detail: 'An unexpected error occurred.',
    requestId,
  });
}
