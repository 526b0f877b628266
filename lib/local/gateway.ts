import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { headerRefusal } from '#wire/tokenRefusals';
import { allowedMethods } from '#http/allowedMethods';
import { limitsOf } from '#http/principal';
import { AUTHORIZER_UNAVAILABLE } from '#http/problem';
import { matchPath } from '#http/route';
import { authorizerHandler, routes, type Route } from '#http/routes';
import { docsAnswer } from './docs';
import { localLog, type LocalLog } from './localLog';
import { CONSUMER_TABLE_ACCESS, routeTableAccess } from '#lib/tableAccess';
import { asFunction } from './tableAccess.ts';
import {
  type AuthorizerHandler,
  type Functions,
  lambdaContext,
  loadHandler,
  methodArn,
  proxyEvent,
  type ProxyHandler,
} from './lambdaEvents.ts';
import { RateLimiter } from './rateLimits';
import { methodThrottles } from '#lib/aws/methodThrottles';
import { cachedAuthorizer } from './authorizerCache.ts';
import { overLambdaPayload } from './payloadLimit.ts';
import { answerClientError, gatewayProblem, methodNotAllowed, preflight, refusedToken } from './gatewayAnswers.ts';

/**
 * A local stand-in for API Gateway (REST, proxy integration, TOKEN authorizer): routes requests by
 * the route table (405 for a path it serves asked with another method, as the stack's mock methods
 * answer), runs the authorizer first and answers 401/403 as API Gateway would, builds the
 * REST proxy event API Gateway sends (lambdaEvents.ts), invokes the handler and writes its result back.
 */
/** API Gateway's payload limit; the handlers enforce the service's own, smaller limit. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

export interface GatewayOptions {
  log?: LocalLog;
}

/** How far a request got: a function answered it (it logs its own line), or a function failed to. */
interface Reached {
  function: boolean;
  failure?: { message: string; error: unknown };
}

/** Every function loaded at once (the benchmarks, which invoke them in-process); the gateway loads each on its first request. */
export async function loadHandlers(root: string) {
  const handlers = new Map<Route, ProxyHandler>();
  for (const route of routes) handlers.set(route, await loadHandler<ProxyHandler>(root, route.handler));
  const authorizer = await loadHandler<AuthorizerHandler>(root, authorizerHandler);
  return { handlers, authorizer };
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > GATEWAY_MAX_BODY) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Writes an answer; like API Gateway, every answer names the gateway's request id (x-amzn-RequestId). */
function send(res: ServerResponse, result: APIGatewayProxyResult, requestId: string) {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) headers[k] = v.map(String);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

export function createGateway(loaded: Functions, opts: GatewayOptions): Server {
  const log = opts.log ?? localLog;
  const authorize = cachedAuthorizer(loaded.authorizer);
  const rateLimiter = new RateLimiter();
  const server = createServer(async (req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://localhost');
    const requestId = randomUUID();
    let result: APIGatewayProxyResult;
    const reached: Reached = { function: false };
    try {
      result = await dispatch(loaded, authorize, rateLimiter, method, url, req, requestId, reached);
    } catch (error) {
      reached.failure = { message: 'function failed to answer', error };
      result = gatewayProblem('bad_gateway', 'The function failed to answer.', requestId);
    }
    send(res, result, requestId);
    // A function's answer has its own log line (observe.ts); the gateway logs what it answered itself.
    const latency_ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    const fields = { source: 'gateway', api_request_id: requestId, method, path: url.pathname, status: result.statusCode, latency_ms };
    if (reached.failure) log('error', reached.failure.message, { ...fields, error: reached.failure.error });
    else if (!reached.function) log('info', 'gateway answer', fields);
  });
  server.on('clientError', answerClientError);
  // Node closes an idle kept-alive connection after 5 s; a client that sends on it just then (a POST,
  // which no client sends again by itself) gets "socket hang up". Idle connections are kept a minute, as
  // load balancers do, and the Keep-Alive header says so, so clients let go of them first (fetch does; Node's
  // http.Agent only when it has a timeout of its own: test/support/api.ts).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}

/** How long an idle kept-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000;

async function dispatch(
  loaded: Functions,
  authorize: (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>,
  rateLimiter: RateLimiter,
  method: string,
  url: URL,
  req: IncomingMessage,
  requestId: string,
  reached: Reached,
): Promise<APIGatewayProxyResult> {
  let match: { route: Route; params: Record<string, string> } | undefined;
  for (const route of routes) {
    const params = route.method === method ? matchPath(route.path, url.pathname) : null;
    if (params) {
      match = { route, params };
      break;
    }
  }
  if (!match && method === 'OPTIONS' && routes.some((route) => matchPath(route.path, url.pathname))) return preflight();
  const docs = !match && method === 'GET' ? docsAnswer(url.pathname, req.headers.host) : undefined;
  if (docs) return docs;
  if (!match) {
    const allowed = allowedMethods(url.pathname);
    const template = routes.find((route) => matchPath(route.path, url.pathname))?.path;
    if (template) return methodNotAllowed(method, template, allowed, requestId);
    return gatewayProblem('not_found', `No route for ${method} ${url.pathname}.`, requestId);
  }
  const body = await readBody(req);
  if (body === 'too-large') {
    return gatewayProblem('payload_too_large', 'The body exceeds the gateway limit.', requestId);
  }

  // A missing header, or one not in a token's form, never reaches the authorizer (its identity validation).
  const authorization = req.headers.authorization;
  const refusal = headerRefusal(authorization);
  if (refusal || authorization === undefined) return refusedToken(refusal ?? 'missing', requestId);
  let policy: APIGatewayAuthorizerResult;
  try {
    policy = await asFunction('authorizer', CONSUMER_TABLE_ACCESS.authorizer, () =>
      authorize({ type: 'TOKEN', authorizationToken: authorization, methodArn: methodArn(method, url.pathname) }),
    );
  } catch (error) {
    if ((error as Error).message === 'Unauthorized') return refusedToken('unknown', requestId);
    reached.failure = { message: 'authorizer failed to answer', error };
    // As API Gateway's AUTHORIZER_FAILURE response (the stack's): a 503 with Retry-After.
    return gatewayProblem(AUTHORIZER_UNAVAILABLE.code, AUTHORIZER_UNAVAILABLE.detail, requestId, AUTHORIZER_UNAVAILABLE.headers);
  }
  // A Deny is the authorizer's refusal of the token: the stack's ACCESS_DENIED response, a 401 with its sentence.
  const allowed = policy.policyDocument.Statement.some((s) => 'Effect' in s && s.Effect === 'Allow');
  if (!allowed) return refusedToken(policy, requestId);
  // The usage plan's throttle, per API key, as deployed (stack: API key source AUTHORIZER).
  const limits = limitsOf(policy.context);
  if (!policy.usageIdentifierKey || !limits) return gatewayProblem('forbidden', 'The API key is not accepted.', requestId);
  // A heavy method's own limit in the plan (lib/aws/methodThrottles.ts) first, then the token's.
  const own = methodThrottles(limits).find((t) => t.method === method && t.path === match.route.path);
  const waitForMethod = own
    ? rateLimiter.take(`${policy.usageIdentifierKey} ${method} ${own.path}`, { rate: own.rateLimit, burst: own.burstLimit })
    : 0;
  const wait = waitForMethod || rateLimiter.take(policy.usageIdentifierKey, limits);
  if (wait > 0) {
    return gatewayProblem('rate_limited', 'Too many requests; retry after the time given in Retry-After.', requestId, {
      'Retry-After': String(wait),
    });
  }

  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  const event = proxyEvent({
    route: match.route,
    method,
    path: url.pathname,
    pathParameters: match.params,
    query: url.searchParams,
    headers,
    // Bytes that are not UTF-8 travel as sent (base64), as API Gateway passes binary bodies:
    // the handler refuses them rather than storing replacement characters.
    ...(isUtf8(body) ? { body: body.length ? body.toString('utf8') : null } : { body: body.toString('base64'), isBase64Encoded: true }),
    authorizer: { principalId: policy.principalId, integrationLatency: 0, ...policy.context },
    requestId,
    // Served at the root, as a custom domain mapped at its root: no stage in the called path.
    calledPath: url.pathname,
  });
  reached.function = true;
  const result = await asFunction(match.route.name, routeTableAccess(match.route), async () =>
    (await loaded.handler(match.route))(event, lambdaContext(match.route.name)),
  );
  // Over Lambda's payload limit, Lambda refuses the answer and API Gateway answers 502.
  const error = overLambdaPayload(result);
  if (!error) return result;
  reached.failure = { message: 'function answer too large', error };
  return gatewayProblem('bad_gateway', 'The function failed to answer.', requestId);
}
