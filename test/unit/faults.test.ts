import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { sampleProject, sampleProjectItem } from '#support/items';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';

// Faults a real database cannot produce on demand: every DynamoDB call answered by a mock.
const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());
afterAll(() => ddb.restore());

const fixture = { ws: 'acme-corp', project: 'website-redesign', label: 'bug', task: 'task-1' };
/** Stored items as the service writes them (reads decode them strictly). */
const project = sampleProject();
const label = { id: 1, slug: 'bug', title: 'Bug', color: 'D73A4A', created_at: project.created_at, updated_at: project.created_at };
const awsError = (name: string, extra: object = {}) =>
  Object.assign(new Error(`${name}: internal detail WS#acme-corp`), { name, $metadata: {}, ...extra });

describe.each(routes.map((r) => [r.name, r] as const))('%s', (_name, route) => {
  test('answers 503 with Retry-After when DynamoDB throttles', async () => {
    ddb.onAnyCommand().rejects(awsError('ProvisionedThroughputExceededException'));
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(res.headers?.['Content-Type']).toBe('application/problem+json');
  });

  test('answers 500 without internals when DynamoDB fails unexpectedly', async () => {
    ddb.onAnyCommand().rejects(awsError('ValidationException'));
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toMatch(/WS#|ValidationException|internal detail|\n\s+at /);
  });
});

describe('partially processed batches', () => {
  test('a delete whose batch items stay unprocessed answers 503, never 200', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...sampleProjectItem(), deleting: true } });
    ddb.on(QueryCommand).resolves({ Items: [{ PK: 'PROJECT#p-1', SK: 'USE#1', type: 'label_use' }] });
    ddb.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));
    const route = routes.find((r) => r.name === 'delete-project')!;
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(503);
    expect(ddb.commandCalls(BatchWriteCommand).length).toBeGreaterThan(1);
  });

  test('items left unprocessed once are sent again and the delete succeeds', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...sampleProjectItem(), deleting: true } });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ PK: 'PROJECT#p-1', SK: 'USE#1', type: 'label_use' }] })
      .resolves({ Items: [] });
    ddb
      .on(BatchWriteCommand)
      .callsFakeOnce((input) => ({ UnprocessedItems: input.RequestItems }))
      .resolves({ UnprocessedItems: {} });
    const route = routes.find((r) => r.name === 'delete-project')!;
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(200);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(2);
  });
});

describe('transaction conflicts', () => {
  test('an attach that keeps losing to concurrent writers answers 503', async () => {
    ddb.on(GetCommand).callsFake((input) => ({
      Item: input.Key.SK.startsWith('USE#') ? undefined : input.Key.SK.startsWith('LABEL#') ? label : sampleProjectItem(),
    }));
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(TransactWriteCommand).rejects(
      awsError('TransactionCanceledException', {
        CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
      }),
    );
    const route = routes.find((r) => r.name === 'attach-label')!;
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(503);
    expect(ddb.commandCalls(TransactWriteCommand).length).toBeGreaterThan(1);
  });
});
