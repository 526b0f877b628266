import type { MiddlewareStack } from '@smithy/types';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { useLocalRetryLane } from '#webhooks/queue';
import { checkTable } from '#checker/invariants';
import { processStreamBatch } from '#events/processor';
import type { OutboundEvent } from '#events/outbound';
import { routes, type Route } from '#http/routes';
import { ensureTable } from '#local/database';
import { drainTableStream } from '#local/streamReads';
import { chunk } from '#store/batches';
import { db } from '#store/client';
import { labelTally } from '#store/labelTally';
import { countedKinds, countInPart, forgetCounts } from '#store/workspaceCounts';
import { cloneFixtures, fixtureItems, seedFixture } from './fixtures.ts';
import { invokeRoute, principalFor } from './invoke.ts';
import { usePrivateDatabase } from './privateTable.ts';
import { sampleRequest } from './requests.ts';

/**
 * Fault injection at every DynamoDB call site (test/reliability/fault-injection/): a middleware on the
 * shared DocumentClient makes the n-th call of a run fail, after the SDK's own retries (for good),
 * with a kind of fault a real database can produce. Each file tests a part of the service on tables
 * of its own (created before each test, deleted after) in a database of its own, so the checker's
 * scans and the stream reads stay small; no local API reads these tables' streams: the tests run the
 * stream processor themselves, as Lambda would.
 */
export type Fault = { name: string; applies: (command: string) => boolean; act: (input: any) => unknown };

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

export const faults: Fault[] = [
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

/**
 * For the stream processor and the inbound consumer, which make many calls per run: every call site
 * fails once, with the fault specific to its kind of call (a cancelled transaction, unprocessed batch
 * items) and otherwise with throttling, a server error or a timeout in turn.
 */
export function oneFaultPerCall(command: string, n: number): Fault[] {
  const specific = specificTo(command);
  return specific.length ? specific : [faults[n % 3]!];
}

/** The faults of `command`'s own kind (a cancelled transaction, unprocessed batch items), none for a call of another. */
const specificTo = (command: string): Fault[] => faults.slice(3).filter((f) => f.applies(command));

/**
 * For a route's request: every call fails with each fault specific to its kind of call (a cancelled transaction,
 * unprocessed batch items), and with one of throttling, a server error or a timeout, in turn from call to call. Those
 * three are one failure to the service: it judges an error by `isTransient` (store/errors.ts), which takes all three,
 * and answers each a 503 with Retry-After (test/unit/problem.test.ts holds each to that); which call fails is what
 * moves the state a request leaves, and every call is failed. A specific fault takes a path of its own (a transaction
 * cancelled by a conflict, or a batch that left items unprocessed, is tried again; a call that throws is not), so a
 * call that has one is failed both ways. `turn` starts the rotation (the route's place in the table, plus the pass):
 * a route of one or two calls does not always get the same kind as every other such route.
 */
const routeFaults =
  (turn: number) =>
  (command: string, n: number): Fault[] => [...specificTo(command), faults[(n + turn) % 3]!];

/** Every (n, fault) to try: the n-th call of a dry run failing with each fault `faultsFor` gives it. */
export function casesOf(dryCalls: string[], faultsFor: (command: string, n: number) => Fault[]): { n: number; fault: Fault }[] {
  return dryCalls.flatMap((command, i) => faultsFor(command, i + 1).map((fault) => ({ n: i + 1, fault })));
}

/**
 * A run that fails a dry run's `n`-th call as the `nth` call of its command: where a run fails it when its calls
 * interleave otherwise (the stream processor and the inbound consumer send some at once, and send the next as answers
 * come back, so the order of the calls of different kinds moves from run to run). `reached`: whether its fault struck.
 * One that did not must have been a run that made fewer calls of that command than the dry run (the dry run retried
 * after a conflict between its own concurrent writes, which this run did not meet): never one that reached the call.
 */
export async function faultedByKind<T>(
  dryCalls: string[],
  n: number,
  fault: Fault,
  of: string,
  run: () => Promise<T>,
): Promise<{ result: T; where: string; reached: boolean }> {
  const command = dryCalls[n - 1]!;
  const nth = dryCalls.slice(0, n).filter((c) => c === command).length;
  const where = `${fault.name} at ${of} call ${n} (${command} ${nth})`;
  const injectedBefore = injector.injected;
  injector.arm(nth, fault, command);
  let result: T;
  try {
    result = await run();
  } finally {
    injector.disarm();
  }
  const struck = injector.injected - injectedBefore;
  expect(struck, `${where}: struck more than once`).toBeLessThanOrEqual(1);
  if (struck === 0) expect(injector.calls.filter((c) => c === command).length, `${where}: reached, and not struck`).toBeLessThan(nth);
  return { result, where, reached: struck === 1 };
}

/** Runs that made fewer calls of a case's command than the dry run test nothing: at most a tenth of them. */
export function expectFewShort(short: string[], runs: number): void {
  expect(short.length, `cases their runs did not reach: ${short.join('; ')}`).toBeLessThanOrEqual(Math.floor(runs / 10));
}

/**
 * The injector, installed on the shared DocumentClient: `plan` says which call fails and how (the `failAt`-th of
 * the run, or of its `command`), `calls` lists the commands of the run so far, `injected` counts the faults that
 * struck, `inFlight` the calls not ended (none once a request has answered or a batch has ended: nothing of theirs
 * goes on after).
 */
export const injector = {
  plan: { failAt: 0 } as { failAt: number; fault?: Fault; command?: string },
  calls: [] as string[],
  /** Each call's input, beside `calls`: which item a call reads or writes. */
  inputs: [] as Record<string, unknown>[],
  injected: 0,
  inFlight: 0,
  /** A fresh run: no fault unless `fault` is given for the `failAt`-th call (of `command`, where it is given). */
  arm(failAt = 0, fault?: Fault, command?: string) {
    this.calls = [];
    this.inputs = [];
    this.plan = fault ? { failAt, fault, ...(command ? { command } : {}) } : { failAt: 0 };
  },
  disarm() {
    this.plan = { failAt: 0 };
  },
};
(db.middlewareStack as MiddlewareStack<any, any>).add(
  (next, context) => async (args) => {
    const command = context.commandName!;
    injector.calls.push(command);
    injector.inputs.push(args.input as Record<string, unknown>);
    injector.inFlight++;
    const { plan } = injector;
    // The failAt-th call of the run, or of its command.
    const mine = !plan.command || command === plan.command;
    const counted = plan.command ? injector.calls.filter((c) => c === plan.command).length : injector.calls.length;
    try {
      if (mine && counted === plan.failAt && plan.fault?.applies(command)) {
        injector.injected++;
        return plan.fault.act(args.input) as any;
      }
      return await next(args);
    } finally {
      injector.inFlight--;
    }
  },
  { step: 'initialize', name: 'faultInjection', override: true },
);

/** The events the stream processor published in this file's drains. */
export const published: OutboundEvent[] = [];
let checkpoints: Record<string, string> = {};
const memoryBus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };

/** Runs the stream processor over what the table's stream holds since the last drain (what Lambda would deliver). */
export function drain(): Promise<number> {
  return drainTableStream({
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    tableName: process.env.TABLE_NAME!,
    handle: (records) => processStreamBatch(records, memoryBus),
    checkpoints,
  });
}

/**
 * Moves past what the table's stream holds since the last drain without running the stream processor
 * on it (the records of cloned fixtures, whose derived items are copied with them).
 */
export function skipStream(): Promise<number> {
  return drainTableStream({
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    tableName: process.env.TABLE_NAME!,
    handle: async () => undefined,
    checkpoints,
  });
}

/** Each test of the file on a table of its own, `fault-injection-<name>`, deleted after it. */
export function tableEachTest(name: () => string): void {
  usePrivateDatabase();
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  beforeEach(async () => {
    process.env.TABLE_NAME = `fault-injection-${name()}`;
    await ensureTable(admin, process.env.TABLE_NAME);
    checkpoints = {};
  });
  afterEach(async () => {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    process.env.TABLE_NAME = '';
  });
  afterAll(() => admin.destroy());
}

/**
 * For every route of `shard`: its sample request's n-th DynamoDB call fails, for every n, with the faults
 * `routeFaults` gives that call. The request must then succeed or answer 503 with Retry-After, the data model
 * must hold (invariant checker clean), and retrying the request must work.
 */
export function describeRouteFaults(shard: readonly Route[]): void {
  // This file's own count (the injector is the worker's, shared by the files it runs).
  const tally = { cases: 0, calls: 0 };
  afterAll(() => {
    console.log(`fault injection: ${tally.cases} faulted cases at ${tally.calls} call sites across ${shard.length} routes`);
  });
  // A recovery queues attempts on the webhook retry lane (SQS deployed): here, a lane that takes them.
  beforeAll(() => useLocalRetryLane({ later: async () => undefined, deadLetter: async () => undefined }));
  afterAll(() => useLocalRetryLane(undefined));
  describe.each(shard.map((r) => [r.name, r] as const))('%s', (_name, route) => {
    tableEachTest(() => route.name);
    test('succeeds or answers 503 at every failing call, leaves the model intact, and works when retried', async () => {
      // Every request runs on a fixture the stream has caught up with (its counters derived), as most do.
      // The webhook routes act on a webhook and a delivery of the fixture's own.
      const webhook = route.path.startsWith('/webhooks');
      const dry = await seedFixture('fi', { webhook });
      await drain();
      const template = await fixtureItems(dry);
      let before: string[] | undefined;
      const faulted: string[] = [];
      for (const [state, prime] of INSTANCE_STATES) {
        // The first state's dry run on the seeded fixture; another's on a copy (the dry run before changed its own).
        const subject = before === undefined ? dry : (await cloneFixtures(template, 1, 'fi'))[0]!;
        if (before !== undefined) await skipStream();
        await prime(subject.ws);
        injector.arm();
        const clean = await invokeRoute(route, sampleRequest(route, subject), principalFor(subject.ws));
        expect(clean.statusCode, `${state}: ${clean.body}`).toBeLessThan(300);
        const dryCalls = [...injector.calls];
        // A route that never touches the table has no call to fail; it must make none.
        if (route.access === 'none') return void expect(dryCalls).toEqual([]);
        expect(dryCalls.length).toBeGreaterThan(0);
        // Where what the instance remembers changes no call, the cases of the state before covered this one's.
        if (before !== undefined && before.join() === dryCalls.join()) continue;
        before = dryCalls;
        faulted.push(state);
        const planned = await faultEveryCall(route, template, dryCalls, prime, state, routes.indexOf(route) + faulted.length - 1);
        tally.cases += planned;
        tally.calls += dryCalls.length;
        // A count moves only in a transaction: where the request sends none, the instance's memory changes nothing.
        if (!dryCalls.includes('TransactWriteItemsCommand')) break;
      }
      // A create that counts in reads a count new to the instance and guesses one it has seen: both paths faulted.
      if (COUNTING_IN.has(route.name)) expect(faulted).toEqual(INSTANCE_STATES.map(([state]) => state));
    });
  });
}

/** The routes whose create moves a workspace's count in (store/workspaceCounts.ts). */
const COUNTING_IN = new Set(['create-label', 'create-webhook']);

/**
 * What the function's instance remembers of a workspace's counts (store/workspaceCounts.ts), made the same for a dry run
 * and each of its cases: nothing (new to the instance: it reads a count before it moves it), then the counts seen kept
 * (an instance that served the workspace: it guesses them in the transaction's condition).
 */
const INSTANCE_STATES: [string, (ws: string) => Promise<void>][] = [
  ['a workspace new to the instance', async () => forgetCounts()],
  [
    'counts the instance has seen',
    async (ws) => {
      forgetCounts();
      await countInPart(countedKinds.webhooks, ws, Infinity);
      await countInPart((await labelTally(ws)).count, ws, Infinity);
    },
  ],
];

/**
 * Fails each call of the dry run in turn (with the faults `routeFaults` gives it), each case on a copy of the fixture as it was
 * before the dry run, its instance `prime`d as the dry run's was: the answer is a success or a 503, the checker finds
 * nothing, and a retry works. `turn`: where the rotation of transient faults starts. Answers how many cases ran.
 */
async function faultEveryCall(
  route: Route,
  template: Awaited<ReturnType<typeof fixtureItems>>,
  dryCalls: string[],
  prime: (ws: string) => Promise<void>,
  state: string,
  turn: number,
): Promise<number> {
  // One fixture per (call, fault): copies of the dry run's fixture as it was before the run (seeding
  // each through the data layer was most of the time), the dry run's own stream records handled first.
  const cases = casesOf(dryCalls, routeFaults(turn));
  await drain();
  const fixtures = await cloneFixtures(template, cases.length, 'fi');
  await skipStream();
  // Each case on a fixture of its own: every failing request first, then the stream, then one check of every
  // fixture (a scan of the table per case was most of the time); then every retry, the stream, one check again.
  // A violation names its case by the fixture's workspace.
  const answered: { where: string; ok: boolean }[] = [];
  for (const [i, { n, fault }] of cases.entries()) {
    const fixture = fixtures[i]!;
    await prime(fixture.ws);
    injector.arm(n, fault);
    const injectedBefore = injector.injected;
    const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    injector.disarm();
    const where = `${state}: ${fault.name} at call ${n} (${injector.calls[n - 1] ?? 'not reached'})`;
    // Nothing of the request's goes on after its answer (a call still running would land in the next case's run).
    expect(injector.inFlight, `${where}: DynamoDB calls still running after the answer`).toBe(0);
    // The request made the same calls as the dry run up to the n-th, which failed: no case passes vacuously.
    expect(injector.injected - injectedBefore, where).toBe(1);
    if (res.statusCode >= 300) {
      expect(res.statusCode, `${where}: ${res.body}`).toBe(503);
      expect(res.headers?.['Retry-After'], where).toMatch(/^\d+$/);
    }
    answered.push({ where, ok: res.statusCode < 300 });
  }
  const violations = () => caseViolations(fixtures.map((f, i) => ({ ws: f.ws, where: answered[i]!.where })));
  await drain();
  expect(await violations()).toEqual([]);
  for (const [i, { where, ok }] of answered.entries()) {
    const fixture = fixtures[i]!;
    await prime(fixture.ws);
    const retried = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
    const retriedOk = retried.statusCode < 300 || (ok && [404, 409].includes(retried.statusCode));
    expect(retriedOk, `${where}, retried: ${retried.statusCode} ${retried.body}`).toBe(true);
  }
  await drain();
  expect(await violations(), 'after the retries').toEqual([]);
  return cases.length;
}

/**
 * The checker over every case's workspace, 100 a scan (its filter lists them in an IN, which takes at most 100 values;
 * a scan per case would read every other case's fixture too). What it finds is named by case: not every violation
 * names its workspace (a counter names its project's id), so each workspace of a scan that found any is checked again
 * alone; a violation seen only with the workspaces together is kept, named so.
 */
export async function caseViolations(cases: readonly { ws: string; where: string }[]): Promise<string[]> {
  const named: string[] = [];
  for (const some of chunk(cases, 100)) {
    const found = (await checkTable(some.map((c) => c.ws))).violations;
    if (!found.length) continue;
    const alone: string[] = [];
    for (const { ws, where } of some) alone.push(...(await checkTable([ws])).violations.map((v) => `${where}: ${v}`));
    named.push(...(alone.length ? alone : found.map((v) => `with every case's workspace at once: ${v}`)));
  }
  return named;
}

/** The routes of one of `count` route files (every route falls in exactly one: a new route is covered by itself). */
export function routeShard(index: number, count: number): Route[] {
  return routes.filter((_, i) => i % count === index);
}
