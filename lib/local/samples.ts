import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { matchPath, type SampleRequest as RouteSample, type SampleTargets as RouteTargets } from '#http/route';
import { routes, type Route } from '#http/routes';
import { toAuthorizerContext } from '#http/principal';
import { methodArn, proxyEvent } from './lambdaEvents.ts';
import { sampleInboundEvent, sampleStreamEvent, sampleWebhookEvent } from './sampleBatches.ts';
import {
  AUTHORIZER_EVENT,
  FIXED_EPOCH,
  FIXTURES,
  INBOUND_EVENT,
  SAMPLE_PRINCIPAL,
  SAMPLE_WORKSPACE,
  STREAM_EVENT,
  TOKEN_PLACEHOLDER,
  WEBHOOK_EVENT,
} from './sampleFixtures.ts';

export { AUTHORIZER_EVENT, FIXTURES, INBOUND_EVENT, SAMPLE_PRINCIPAL, SAMPLE_WORKSPACE, STREAM_EVENT, TOKEN_PLACEHOLDER, WEBHOOK_EVENT };

/**
 * The sample events (events/<function>.json): one request per function, as API Gateway would send it
 * through the local gateway, against a small fixture set that `seedFixtures()` creates.
 * `npm run events` writes them; the events tests check the files still equal what this produces.
 */

/** A sample request and the status its route answers when the fixtures exist. */
export type SampleRequest = RouteSample & { expectedStatus: number };
export type SampleTargets = Omit<RouteTargets, 'newLabel'>;

/**
 * A valid request for every route against the given targets (each route's row says its own). The
 * sample events use it with the fixtures above; the tests generated from the route table (isolation
 * matrix, fault injection) use it with fixtures of their own.
 */
export function sampleRequestsFor(t: SampleTargets): Record<string, SampleRequest> {
  return Object.fromEntries(
    routes.map((r) => [r.name, { ...r.sample({ ...t, newLabel: FIXTURES.newLabel }), expectedStatus: r.answer.status }]),
  );
}

export const SAMPLE_REQUESTS: Record<string, SampleRequest> = sampleRequestsFor({
  ws: SAMPLE_WORKSPACE,
  project: FIXTURES.project.slug,
  label: FIXTURES.label.slug,
  task: FIXTURES.task,
  doomedProject: FIXTURES.doomedProject.slug,
  doomedLabel: FIXTURES.doomedLabel.slug,
});

function requestId(index: number): string {
  return `c0ffee00-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;
}

export function routeNamed(name: string): Route {
  const route = routes.find((r) => r.name === name);
  if (!route) throw new Error(`No route named "${name}". Known: ${[...routes.map((r) => r.name), AUTHORIZER_EVENT].join(', ')}`);
  return route;
}

/** The REST proxy event for one route's sample request, as the (local) API Gateway builds it. */
function sampleProxyEvent(name: string): APIGatewayProxyEvent {
  const route = routeNamed(name);
  const sample = SAMPLE_REQUESTS[name];
  if (!sample) throw new Error(`No sample request for route "${name}" in lib/local/samples.ts`);
  const pathParameters = matchPath(route.path, sample.path);
  if (!pathParameters) throw new Error(`Sample path ${sample.path} does not match ${route.path}`);
  const body = sample.body === undefined ? null : JSON.stringify(sample.body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: `Bearer ${TOKEN_PLACEHOLDER}`,
    Host: 'api.example.com',
    'User-Agent': 'curl/8.5.0',
    'X-Forwarded-For': '203.0.113.10',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...(body === null ? {} : { 'Content-Type': 'application/json' }),
  };
  const index = routes.indexOf(route);
  const event = proxyEvent({
    route,
    method: route.method,
    path: sample.path,
    pathParameters,
    query: new URLSearchParams(sample.query ?? {}),
    headers,
    body,
    authorizer: { principalId: SAMPLE_PRINCIPAL.tokenId, integrationLatency: 0, ...toAuthorizerContext(SAMPLE_PRINCIPAL) },
    requestId: requestId(index),
  });
  event.requestContext.requestTimeEpoch = FIXED_EPOCH;
  event.requestContext.identity.sourceIp = '203.0.113.10';
  event.requestContext.identity.userAgent = 'curl/8.5.0';
  return event;
}

/** The TOKEN authorizer event API Gateway sends before a request (here: get-project's). */
function sampleAuthorizerEvent(): APIGatewayTokenAuthorizerEvent {
  const sample = SAMPLE_REQUESTS['get-project']!;
  return { type: 'TOKEN', authorizationToken: `Bearer ${TOKEN_PLACEHOLDER}`, methodArn: methodArn('GET', sample.path) };
}

/** Every sample event by file stem: one per route, the authorizer's, the stream processor's, the inbound consumer's and the webhook deliverer's. */
export function sampleEvents(): Record<string, APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent | DynamoDBStreamEvent | SQSEvent> {
  return {
    ...Object.fromEntries(routes.map((r) => [r.name, sampleProxyEvent(r.name)])),
    [AUTHORIZER_EVENT]: sampleAuthorizerEvent(),
    [STREAM_EVENT]: sampleStreamEvent(),
    [INBOUND_EVENT]: sampleInboundEvent(),
    [WEBHOOK_EVENT]: sampleWebhookEvent(),
  };
}

/** The instants the samples are dated at (FIXED_EPOCH and the minutes after it), as ISO text and as epoch milliseconds. */
const SAMPLE_INSTANT = new RegExp(
  `${new Date(FIXED_EPOCH).toISOString().slice(0, 13)}:\\d\\d:\\d\\d\\.\\d{3}Z|\\b${String(FIXED_EPOCH).slice(0, 7)}\\d{6}\\b`,
  'g',
);

/**
 * The same event for another workspace (tests use a fresh one per run) and with a real token; with `now`, its
 * sample instants moved to now and the seconds after, as far apart as they were (the inbound sample's events
 * then follow the project the run made, as events of a live product would).
 */
export function prepareEvent<T>(event: T, opts: { workspace?: string; token?: string; now?: number }): T {
  let json = JSON.stringify(event);
  if (opts.workspace && opts.workspace !== SAMPLE_WORKSPACE) json = json.replaceAll(SAMPLE_WORKSPACE, opts.workspace);
  if (opts.token) json = json.replaceAll(TOKEN_PLACEHOLDER, opts.token);
  const now = opts.now;
  if (now !== undefined)
    json = json.replace(SAMPLE_INSTANT, (instant) => {
      const ms = /^\d+$/.test(instant) ? Number(instant) : Date.parse(instant);
      const moved = now + ms - FIXED_EPOCH;
      return /^\d+$/.test(instant) ? String(moved) : new Date(moved).toISOString();
    });
  return JSON.parse(json) as T;
}
