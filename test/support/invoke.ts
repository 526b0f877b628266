import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext, loadHandler, proxyEvent, type ProxyHandler } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import { toAuthorizerContext, type Principal } from '#http/principal';
import { SCOPES } from '#domain/scopes';
import { matchPath } from '#http/route';
import { type Route } from '#http/routes';
import type { SampleRequest } from './requests.ts';

export function principalFor(ws: string, scopes = [...SCOPES]): Principal {
  return { tokenId: 'test-token', owner: { name: 'Test User', username: 'tester' }, workspaces: [ws], scopes };
}

/** Calls a route's handler in-process with the event API Gateway would send (authorizer context included), and `headers`. */
export async function invokeRoute(
  route: Route,
  req: SampleRequest,
  principal: Principal,
  headers: Record<string, string> = {},
): Promise<APIGatewayProxyResult> {
  const handler = await loadHandler<ProxyHandler>(repoRoot, route.handler);
  const event = proxyEvent({
    route,
    method: route.method,
    path: req.path,
    pathParameters: matchPath(route.path, req.path) ?? {},
    query: new URLSearchParams(req.query),
    headers: { ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: req.body === undefined ? null : JSON.stringify(req.body),
    authorizer: { principalId: principal.tokenId, ...toAuthorizerContext(principal) },
  });
  return handler(event, lambdaContext(route.name));
}
