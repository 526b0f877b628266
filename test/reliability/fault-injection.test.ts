import type { MiddlewareStack } from '@smithy/types';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ensureTable } from '#local/database';
import { db } from '#store/client';
import { routes } from '#http/routes';
import { checkTable } from '#checker/invariants';
import { seedFixture } from '#support/fixtures';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';

/**
 * Fault injection at every DynamoDB call site: for every route, the n-th DynamoDB call of its
 * sample request fails (after the SDK's own retries, i.e. for good) with each kind of fault a
 * real database can produce. The request must then succeed or answer 503 with Retry-After, the
 * data model must hold (invariant checker clean), and retrying the request must work.
 */
type Fault = { name: string; applies: (command: string) => boolean; act: (input: any) => unknown };

const awsError =
  (name: string, status: number, extra: object = {}) =>
  () => {
    throw Object.assign(new Error(`injected ${name}`), {
      name,
      $fault: status >= 500 ? 'server' : 'client',
      $metadata: { httpStatusCode: status },
      ...extra,
    });
  };
const faults: Fault[] = [
  { name: 'throttling', applies: () => true, act: awsError('ProvisionedThroughputExceededException', 400) },
  { name: 'server error', applies: () => true, act: awsError('InternalServerError', 500) },
  { name: 'timeout', applies: () => true, act: awsError('TimeoutError', 0) },
  {
    name: 'transaction cancelled',
    applies: (c) => c === 'TransactWriteItemsCommand',
    act: (input) =>
      awsError('TransactionCanceledException', 400, {
        CancellationReasons: input.TransactItems.map(() => ({ Code: 'TransactionConflict' })),
      })(),
  },
  {
    name: 'unprocessed items',
    applies: (c) => c === 'BatchWriteItemCommand' || c === 'BatchGetItemCommand',
    act: (input) => ({
      output: { $metadata: {}, UnprocessedItems: input.RequestItems, UnprocessedKeys: input.RequestItems, Responses: {} },
      response: {},
    }),
  },
];

let plan: { failAt: number; fault?: Fault } = { failAt: 0 };
let calls: string[] = [];
let injected = 0;
(db.middlewareStack as MiddlewareStack<any, any>).add(
  (next, context) => async (args) => {
    calls.push(context.commandName!);
    if (calls.length === plan.failAt && plan.fault?.applies(context.commandName!)) {
      injected++;
      return plan.fault.act(args.input) as any;
    }
    return next(args);
  },
  { step: 'initialize', name: 'faultInjection', override: true },
);

afterAll(() => {
  console.log(`fault injection: ${injected} faults injected across ${routes.length} routes`);
});

// Each route gets a table of its own, so the checker's scans stay small.
const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
afterAll(() => admin.destroy());

describe.each(routes.map((r) => [r.name, r] as const))('%s', (_name, route) => {
  beforeEach(async () => {
    process.env.TABLE_NAME = `fault-injection-${route.name}`;
    await ensureTable(admin, process.env.TABLE_NAME);
  });
  afterEach(async () => {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    process.env.TABLE_NAME = '';
  });

  test('succeeds or answers 503 at every failing call, leaves the model intact, and works when retried', async () => {
    const dry = await seedFixture('fi');
    calls = [];
    plan = { failAt: 0 };
    const clean = await invokeRoute(route, sampleRequest(route, dry), principalFor(dry.ws));
    expect(clean.statusCode).toBeLessThan(300);
    const dryCalls = [...calls];
    expect(dryCalls.length).toBeGreaterThan(0);

    for (let n = 1; n <= dryCalls.length; n++) {
      for (const fault of faults.filter((f) => f.applies(dryCalls[n - 1]!))) {
        const fixture = await seedFixture('fi');
        calls = [];
        plan = { failAt: n, fault };
        const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
        plan = { failAt: 0 };
        const where = `${fault.name} at call ${n} (${calls[n - 1] ?? 'not reached'})`;
        if (res.statusCode >= 300) {
          expect(res.statusCode, `${where}: ${res.body}`).toBe(503);
          expect(res.headers?.['Retry-After'], where).toMatch(/^\d+$/);
        }
        expect((await checkTable([fixture.ws])).violations, where).toEqual([]);
        const retried = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
        const retriedOk = retried.statusCode < 300 || (res.statusCode < 300 && [404, 409].includes(retried.statusCode));
        expect(retriedOk, `${where}, retried: ${retried.statusCode} ${retried.body}`).toBe(true);
        expect((await checkTable([fixture.ws])).violations, `${where}, after retry`).toEqual([]);
      }
    }
  });
});
