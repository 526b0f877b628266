import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type LaneMessage, useLocalRetryLane } from '#webhooks/queue';
import { authorizerHandler, routes } from '#http/routes';
import { seedFixtures } from '#local/fixtures';
import { lambdaContext, loadHandler, type AuthorizerHandler, type ProxyHandler } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import { AUTHORIZER_EVENT, STREAM_EVENT, INBOUND_EVENT, SAMPLE_REQUESTS, WEBHOOK_EVENT, prepareEvent, sampleEvents } from '#local/samples';
import { db } from '#store/client';
import { uniqueWorkspace } from '#support/api';

/** DynamoDB operations the handlers send, as the SDK names them (e.g. QueryCommand). */
const sent: string[] = [];
db.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push(String(context.commandName));
    return next(args);
  },
  { step: 'initialize', name: 'recordOperations' },
);
/** What the read-only grant (grantReadData) of GET routes does not allow. */
const WRITE_OPERATIONS = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)Command$/;

const eventsDir = join(repoRoot, 'events');
const readEvent = <T>(name: string): T => JSON.parse(readFileSync(join(eventsDir, `${name}.json`), 'utf8')) as T;

describe('the sample events', () => {
  test('there is one for every route of the route table, the authorizer, the stream processor, the inbound consumer and the webhook deliverer, and no other', () => {
    const files = readdirSync(eventsDir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toEqual(
      [
        ...routes.map((r) => `${r.name}.json`),
        `${AUTHORIZER_EVENT}.json`,
        `${STREAM_EVENT}.json`,
        `${INBOUND_EVENT}.json`,
        `${WEBHOOK_EVENT}.json`,
      ].sort(),
    );
  });

  test('the committed files are what `npm run events` generates from the route table', () => {
    for (const [name, event] of Object.entries(sampleEvents())) expect(readEvent(name), name).toEqual(event);
  });
});

describe('invoking every sample event (in-process, against DynamoDB Local)', () => {
  const workspace = uniqueWorkspace('events');
  let token: string;
  const queued: LaneMessage[] = [];
  beforeAll(async () => {
    ({ token } = await seedFixtures(repoRoot, workspace));
    // The retry lane a recovery queues on, as the local stack registers its own.
    useLocalRetryLane({ later: async (message) => void queued.push(message), deadLetter: async () => undefined });
  });
  afterAll(() => useLocalRetryLane(undefined));

  // In route-table order, one test per event: the fixtures make each independent of the others.
  test.each(routes.map((r) => [r.name, r] as const))('%s answers its expected status', async (name, route) => {
    const handler = await loadHandler<ProxyHandler>(repoRoot, route.handler);
    sent.length = 0;
    const result = await handler(prepareEvent(readEvent<APIGatewayProxyEvent>(name), { workspace }), lambdaContext(name));
    expect(result.statusCode, result.body).toBe(SAMPLE_REQUESTS[name]!.expectedStatus);
    // Deployed, a read route's role may not write: a write here would be AccessDenied in AWS.
    if (route.access === 'read') expect(sent.filter((op) => WRITE_OPERATIONS.test(op))).toEqual([]);
    // A route that never touches the table makes no call; every other one makes some.
    if (route.access === 'none') expect(sent).toEqual([]);
    else expect(sent.length).toBeGreaterThan(0);
    // The sample events were sent to an execute-api URL of stage `local`: a Location must keep the stage.
    if (result.statusCode === 201)
      expect(result.headers?.Location).toMatch(/^\/local\/(projects(-labels)?\/[a-z0-9-]+|webhooks\/wh_[0-9a-f]{24})\?company_slug=/);
  });

  test('a replayed create answers its Location behind the base of the URL the replay was sent to', async () => {
    const route = routes.find((r) => r.name === 'create-label')!;
    const handler = await loadHandler<ProxyHandler>(repoRoot, route.handler);
    const sample = prepareEvent(readEvent<APIGatewayProxyEvent>('create-label'), { workspace });
    // The same request and key, first on the execute-api URL (stage `local`), then through a domain mapped at its root.
    const sentTo = (path: string): APIGatewayProxyEvent => ({
      ...sample,
      body: JSON.stringify({ title: 'Replayed', color: '1E90FF' }),
      headers: { ...sample.headers, 'Idempotency-Key': 'replay-location-1' },
      requestContext: { ...sample.requestContext, path },
    });
    const first = await handler(sentTo('/local/projects-labels'), lambdaContext(route.name));
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers?.Location).toBe(`/local/projects-labels/replayed?company_slug=${workspace}`);
    const again = await handler(sentTo('/projects-labels'), lambdaContext(route.name));
    expect(again.headers?.['Idempotent-Replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers?.Location).toBe(`/projects-labels/replayed?company_slug=${workspace}`);
  });

  test('the authorizer allows the sample event once its token placeholder is a real token', async () => {
    const handler = await loadHandler<AuthorizerHandler>(repoRoot, authorizerHandler);
    const result: APIGatewayAuthorizerResult = await handler(
      prepareEvent(readEvent<APIGatewayTokenAuthorizerEvent>(AUTHORIZER_EVENT), { workspace, token }),
      lambdaContext('authorizer'),
    );
    expect(result.policyDocument.Statement).toEqual([expect.objectContaining({ Effect: 'Allow', Action: 'execute-api:Invoke' })]);
    expect(result.context).toMatchObject({ workspaces: workspace });
  });

  test('the authorizer refuses the sample event with its placeholder left in: a Deny saying why', async () => {
    const handler = await loadHandler<AuthorizerHandler>(repoRoot, authorizerHandler);
    const result = await handler(readEvent<APIGatewayTokenAuthorizerEvent>(AUTHORIZER_EVENT), lambdaContext('authorizer'));
    expect(result.policyDocument.Statement).toEqual([expect.objectContaining({ Effect: 'Deny', Action: 'execute-api:Invoke' })]);
    expect(result.context?.detail).toMatch(/npm run token -- create/);
  });

  test('seeding again leaves the events runnable (create-label can run twice)', async () => {
    await seedFixtures(repoRoot, workspace);
    const route = routes.find((r) => r.name === 'create-label')!;
    const handler = await loadHandler<ProxyHandler>(repoRoot, route.handler);
    const result = await handler(prepareEvent(readEvent<APIGatewayProxyEvent>('create-label'), { workspace }), lambdaContext(route.name));
    expect(result.statusCode, result.body).toBe(201);
  });
});
