import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { projectCascadeRound } from '#domain/cascades';
import { routes } from '#http/routes';
import { StoreUnavailable } from '#store/errors';
import { sampleProject, sampleProjectItem } from '#support/items';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';
import { sweepDeliveries } from '#webhooks/sweeper';
import type { WebhookQueue } from '#webhooks/queue';

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

// Every route that reads or writes the table (one answering from its code alone has no DynamoDB call to fail).
describe.each(routes.filter((r) => r.access !== 'none').map((r) => [r.name, r] as const))('%s', (_name, route) => {
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
  // A cascade round runs in the stream processor: failing, it throws, and the stream delivers it again.
  const job = { ws: 'acme-corp', projectId: 'p-1', round: 0 };
  const counter = { PK: 'PROJECT#p-1', SK: 'USE#1', type: 'label_use' };

  test('a cascade round whose batch items stay unprocessed fails (to be redelivered), never reports done', async () => {
    ddb.on(QueryCommand).resolves({ Items: [counter] });
    ddb.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));
    await expect(projectCascadeRound(job)).rejects.toThrow(StoreUnavailable);
    expect(ddb.commandCalls(BatchWriteCommand).length).toBeGreaterThan(1);
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  test('items left unprocessed once are sent again and the round finishes the job', async () => {
    ddb.on(QueryCommand).resolves({ Items: [counter] });
    ddb
      .on(BatchWriteCommand)
      .callsFakeOnce((input) => ({ UnprocessedItems: input.RequestItems }))
      .resolves({ UnprocessedItems: {} });
    expect(await projectCascadeRound(job)).toBe('done');
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(2);
    expect(ddb.commandCalls(DeleteCommand)[0]!.args[0].input.Key).toEqual({ PK: 'PROJECT#p-1', SK: 'DELETION' });
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

describe('the sweeper', () => {
  test('a queueing that fails stops the sweep at once: the shards in flight read no further page', async () => {
    // Every shard of the due index has a lost delivery on each of its pages, and pages without end.
    let n = 0;
    ddb.on(QueryCommand).callsFake(({ ExpressionAttributeValues }) => {
      n++;
      const delivery = {
        id: `d${n}`,
        workspace: 'acme-corp',
        webhook_id: 'w1',
        status: 'pending',
        next_attempt_at: '2026-01-01T00:00:00.000Z',
      };
      return { Items: [{ ...delivery, due_shard: ExpressionAttributeValues[':shard'] }], LastEvaluatedKey: { page: String(n) } };
    });
    ddb.on(GetCommand).resolves({});
    ddb.on(UpdateCommand).resolves({});
    // The retry lane refuses the first delivery queued again, and takes the others.
    let queued = 0;
    const lane = {
      later: async () => {
        if (queued++ === 0) throw new Error('the retry lane is down');
      },
      deadLetter: async () => undefined,
    } as unknown as WebhookQueue;
    await expect(sweepDeliveries(lane, { now: Date.parse('2026-02-01T00:00:00Z') })).rejects.toThrow('the retry lane is down');
    // Before, the three other shards in flight went on reading page after page until the sweep's 20 s budget ran out.
    expect(ddb.commandCalls(QueryCommand).length).toBeLessThanOrEqual(8);
  });
});
