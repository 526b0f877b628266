import { randomUUID } from 'node:crypto';
import type middy from '@middy/core';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { claimedTokenId } from '#domain/tokens';
import { drainCounts } from '#observability/counts';
import { logger } from '#observability/log';
import { publishMetrics, type MetricName } from '#observability/metrics';
import { routeOf } from '#observability/service';
import { sourceMapped } from '#observability/stacks';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const CORRELATION_HEADER = 'X-Correlation-Id';
const CORRELATION_HEADER_LOWER = CORRELATION_HEADER.toLowerCase();
/** A caller's correlation id is kept when it is 1-128 visible ASCII characters; otherwise one is made. */
const CORRELATION_ID = /^[!-~]{1,128}$/;

/** What a request's own code may count (cascades run in the stream processor). */
const REQUEST_COUNTS = [
  'ConflictRetries',
  'IdempotentReplays',
  'IdempotencyKeepFailures',
  'ProjectCopiesPending',
  'WebhookRecordRetries',
] as const;

interface Observed {
  started: number;
  correlationId: string;
  workspace?: string;
  /** The problem code the request was answered with, when it failed. */
  problem?: string;
}

const observed = new WeakMap<APIGatewayProxyEvent, Observed>();

/** The workspace a request was resolved to, for its log line (set once the endpoint has checked it). */
export function noteWorkspace(event: APIGatewayProxyEvent, workspace: string): void {
  const o = observed.get(event);
  if (o) o.workspace = workspace;
}

/** Which problem the request is answered with (its log line names it). */
export function noteProblem(event: APIGatewayProxyEvent, code: string): void {
  const o = observed.get(event);
  if (o) o.problem = code;
}

/** The caller's X-Correlation-Id, whatever its spelling (API Gateway keeps the client's header case). */
function correlationIdOf(event: APIGatewayProxyEvent): string {
  let given: string | undefined;
  for (const name in event.headers ?? {}) {
    if (name.toLowerCase() === CORRELATION_HEADER_LOWER) given = event.headers[name];
  }
  return typeof given === 'string' && CORRELATION_ID.test(given) ? given : randomUUID();
}

/**
 * One structured log line and one metrics line per request, whatever its outcome, and the
 * correlation id echoed in `X-Correlation-Id`. Registered first: its after and onError run last,
 * when the answer (problem+json included) is final.
 */
export const observe = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> => ({
  before: async (request: Request) => {
    logger.refreshSampleRateCalculation();
    const o: Observed = { started: performance.now(), correlationId: correlationIdOf(request.event) };
    observed.set(request.event, o);
    logger.debug('request received', {
      correlation_id: o.correlationId,
      method: request.event.httpMethod,
      path: request.event.path,
      query: Object.keys(request.event.queryStringParameters ?? {}),
    });
  },
  after: async (request: Request) => finish(request),
  onError: async (request: Request) => finish(request),
});

function statusClass(status: number): MetricName {
  if (status >= 500) return 'Status5xx';
  if (status >= 400) return 'Status4xx';
  if (status >= 300) return 'Status3xx';
  return 'Status2xx';
}

function finish(request: Request): void {
  const { event, context, response, error } = request;
  const o = observed.get(event) ?? { started: performance.now(), correlationId: correlationIdOf(event) };
  if (response) response.headers = { ...response.headers, [CORRELATION_HEADER]: o.correlationId };
  const status = response?.statusCode ?? 500;
  const route = routeOf(context.functionName);
  const fields = {
    request_id: context.awsRequestId,
    api_request_id: event.requestContext?.requestId,
    correlation_id: o.correlationId,
    route,
    method: event.httpMethod,
    workspace: o.workspace,
    token_id: (event.requestContext?.authorizer as { tokenId?: string } | null | undefined)?.tokenId,
    status,
    latency_ms: Math.round((performance.now() - o.started) * 10) / 10,
  };
  if (status >= 500 && status !== 503) logger.error('request failed', { ...fields, error: sourceMapped(error ?? undefined) });
  else if (status === 503) logger.warn('request refused: database busy', { ...fields, error: sourceMapped(error ?? undefined) });
  else if (error) logger.info('request', { ...fields, problem: o.problem });
  else logger.info('request', fields);
  publishMetrics(
    route,
    context.functionName,
    [['Requests', 1], [statusClass(status), 1], ['Unavailable', status === 503 ? 1 : 0], ...drainCounts(REQUEST_COUNTS)],
    { correlation_id: o.correlationId, request_id: context.awsRequestId },
  );
}

/**
 * The TOKEN authorizer's line and metrics (it runs only when API Gateway's policy cache misses):
 * the id the token claims, never the token; `TokensAccepted`, `TokensRefused` or, when it could not
 * tell (the table failing, say), `AuthorizerFailures`, kept apart from the routes' `Requests` so that a
 * request is never counted twice. A refusal is a Deny (its context says why: the 401's sentence); one
 * thrown as "Unauthorized" counts as a refusal too. The alarm watches the failures alone (cdk/alarms.ts).
 */
export function observeAuthorizer<R extends APIGatewayAuthorizerResult>(
  authorize: (event: APIGatewayTokenAuthorizerEvent) => Promise<R>,
): (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<R> {
  return async (event, context) => {
    logger.refreshSampleRateCalculation();
    const started = performance.now();
    const fields = () => ({
      request_id: context.awsRequestId,
      route: 'authorizer',
      token_id: claimedTokenId(event.authorizationToken ?? ''),
      latency_ms: Math.round((performance.now() - started) * 10) / 10,
    });
    let outcome: MetricName = 'AuthorizerFailures';
    try {
      const result = await authorize(event);
      const refused = result.policyDocument.Statement.some((s) => 'Effect' in s && s.Effect === 'Deny');
      outcome = refused ? 'TokensRefused' : 'TokensAccepted';
      if (refused) logger.info('token refused', fields());
      else logger.info('token accepted', fields());
      return result;
    } catch (error) {
      if ((error as Error).message === 'Unauthorized') {
        outcome = 'TokensRefused';
        logger.info('token refused', fields());
      } else logger.error('authorizer failed', { ...fields(), error: sourceMapped(error as Error) });
      throw error;
    } finally {
      publishMetrics('authorizer', context.functionName, [[outcome, 1], ...drainCounts(REQUEST_COUNTS)], {
        request_id: context.awsRequestId,
      });
    }
  };
}
