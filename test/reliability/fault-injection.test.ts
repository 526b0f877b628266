import type { MiddlewareStack } from '@smithy/types';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ensureTable } from '#local/database';
import { db } from '#store/client';
import { routes } from '#http/routes';
import { checkTable } from '#checker/invariants';
import { seedFixture, seedFixtures } from '#support/fixtures';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';
import { processStreamBatch } from '#events/processor';
import type { OutboundEvent } from '#events/outbound';
import { drainTableStream } from '#local/streams';
import { createLabel } from '#domain/labels';
import { changeLabels } from '#domain/taskLabels';
import { deleteLabel } from '#domain/labels';
import { deleteProject } from '#domain/projects';
import { scanTable } from '#checker/invariants';
import type { SQSRecord } from 'aws-lambda';
import { consumeInbound } from '#events/inbound';
import { getProject } from '#domain/projects';
import { labelsOfTask } from '#domain/taskLabels';
import type { Fixture } from '#support/requests';

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

/**
 * For the stream processor and the inbound consumer, which make many calls per run: every call site
 * fails once, with the fault specific to its kind of call (a cancelled transaction, unprocessed batch
 * items) and otherwise with throttling, a server error or a timeout in turn.
 */
function oneFaultPerCall(command: string, n: number): Fault[] {
  const specific = faults.slice(3).filter((f) => f.applies(command));
  return specific.length ? specific : [faults[n % 3]!];
}

/** Every (n, fault) to try: the n-th call of a dry run failing with each fault `faultsFor` gives it. */
function casesOf(dryCalls: string[], faultsFor: (command: string, n: number) => Fault[]): { n: number; fault: Fault }[] {
  return dryCalls.flatMap((command, i) => faultsFor(command, i + 1).map((fault) => ({ n: i + 1, fault })));
}

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

// Each route gets a table of its own, so the checker's scans stay small. No local API reads these
// tables' streams: the test runs the stream processor itself, in-process, as Lambda would.
const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
afterAll(() => admin.destroy());

let checkpoints: Record<string, string> = {};
let published: OutboundEvent[] = [];
const memoryBus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };

/** Runs the stream processor over what the table's stream holds since the last drain (what Lambda would deliver). */
function drain(): Promise<number> {
  return drainTableStream({
    endpoint: process.env.DYNAMODB_ENDPOINT!,
    tableName: process.env.TABLE_NAME!,
    handle: (records) => processStreamBatch(records, memoryBus),
    checkpoints,
  });
}

describe.each(routes.map((r) => [r.name, r] as const))('%s', (_name, route) => {
  beforeEach(async () => {
    process.env.TABLE_NAME = `fault-injection-${route.name}`;
    await ensureTable(admin, process.env.TABLE_NAME);
    checkpoints = {};
  });
  afterEach(async () => {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    process.env.TABLE_NAME = '';
  });

  test('succeeds or answers 503 at every failing call, leaves the model intact, and works when retried', async () => {
    // Every request runs on a fixture the stream has caught up with (its counters derived), as most do.
    const dry = await seedFixture('fi');
    await drain();
    calls = [];
    plan = { failAt: 0 };
    const clean = await invokeRoute(route, sampleRequest(route, dry), principalFor(dry.ws));
    expect(clean.statusCode).toBeLessThan(300);
    const dryCalls = [...calls];
    expect(dryCalls.length).toBeGreaterThan(0);

    // One fixture per (call, fault), seeded up front a few at a time (the seeding is most of the time).
    const cases = casesOf(dryCalls, (command) => faults.filter((f) => f.applies(command)));
    const fixtures = await seedFixtures(cases.length, 'fi');
    await drain();
    for (const [i, { n, fault }] of cases.entries()) {
      const fixture = fixtures[i]!;
      calls = [];
      plan = { failAt: n, fault };
      const injectedBefore = injected;
      const res = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
      plan = { failAt: 0 };
      const where = `${fault.name} at call ${n} (${calls[n - 1] ?? 'not reached'})`;
      // The request made the same calls as the dry run up to the n-th, which failed: no case passes vacuously.
      expect(injected - injectedBefore, where).toBe(1);
      if (res.statusCode >= 300) {
        expect(res.statusCode, `${where}: ${res.body}`).toBe(503);
        expect(res.headers?.['Retry-After'], where).toMatch(/^\d+$/);
      }
      await drain();
      expect((await checkTable([fixture.ws])).violations, where).toEqual([]);
      const retried = await invokeRoute(route, sampleRequest(route, fixture), principalFor(fixture.ws));
      const retriedOk = retried.statusCode < 300 || (res.statusCode < 300 && [404, 409].includes(retried.statusCode));
      expect(retriedOk, `${where}, retried: ${retried.statusCode} ${retried.body}`).toBe(true);
      await drain();
      expect((await checkTable([fixture.ws])).violations, `${where}, after retry`).toEqual([]);
    }
  });
});

/**
 * The stream processor itself: deletes (cascades), detaches and attaches are written, then the
 * processor runs over them with its n-th DynamoDB call failing, for every n it makes; the stream then
 * delivers again (from the last checkpoint, as Lambda does). It must end with nothing orphaned, the
 * counters exact, and every event published, the same ids as a run without faults.
 */
describe('stream processor', () => {
  const actor = { name: 'Seed', username: 'seed' };
  beforeEach(async () => {
    process.env.TABLE_NAME = 'fault-injection-stream';
    await ensureTable(admin, process.env.TABLE_NAME);
    checkpoints = {};
  });
  afterEach(async () => {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    process.env.TABLE_NAME = '';
  });

  /** On a fixture already drained, a change of every kind the processor acts on. Returns the workspace. */
  async function scenario(f: Fixture): Promise<string> {
    published = [];
    const keep = await createLabel(f.ws, { title: 'Keep', color: '0000FF' }, actor);
    await changeLabels('attach', f.ws, { labelSlug: keep.slug, projectSlug: f.project, taskUuids: ['task-2', 'task-9'] }, actor);
    await changeLabels('detach', f.ws, { labelSlug: keep.slug, projectSlug: f.project, taskUuid: 'task-9' }, actor);
    await changeLabels('attach', f.ws, { labelSlug: keep.slug, projectSlug: f.project }, actor);
    await deleteLabel(f.ws, f.label, actor);
    await deleteProject(f.ws, f.project, actor);
    return f.ws;
  }

  const eventKey = (e: OutboundEvent) => `${e.detailType} ${e.detail.event_id}`;

  test('a fault at any call, then redelivery, ends with nothing orphaned and every event published', async () => {
    const first = await seedFixture('fs');
    await drain();
    const ws = await scenario(first);
    calls = [];
    plan = { failAt: 0 };
    await drain();
    const dryCalls = [...calls];
    const expected = new Set(published.map(eventKey));
    expect([...expected].map((k) => k.split(' ').slice(0, 2).join(' ')).sort()).toEqual(
      ['Label Attached', 'Label Attached', 'Label Attached', 'Label Created', 'Label Deleted', 'Label Detached', 'Project Deleted'].sort(),
    );
    expect((await checkTable([ws])).violations).toEqual([]);
    expect(
      (await scanTable()).filter(
        (i) =>
          i.workspace === ws && i.type !== 'label' && i.type !== 'label_title' && i.type !== 'label_id_counter' && i.type !== 'detach_note',
      ),
    ).toEqual([]);

    // A fixture per faulted run, seeded up front a few at a time and drained before the runs.
    const runsPlanned = casesOf(dryCalls, oneFaultPerCall);
    const fixtures = await seedFixtures(runsPlanned.length, 'fs');
    await drain();
    for (const [run, { n, fault }] of runsPlanned.entries()) {
      const ws = await scenario(fixtures[run]!);
      calls = [];
      plan = { failAt: n, fault };
      const where = `${fault.name} at processor call ${n} (${dryCalls[n - 1]})`;
      await drain().catch(() => undefined);
      plan = { failAt: 0 };
      await drain();
      expect((await checkTable([ws])).violations, where).toEqual([]);
      const left = (await scanTable()).filter(
        (i) =>
          i.workspace === ws &&
          [
            'task_link',
            'label_link',
            'label_use',
            'project_label',
            'label_project',
            'task_version',
            'project_deletion',
            'label_deletion',
            'project',
            'stream_receipt',
          ].includes(i.type as string),
      );
      expect(left, where).toEqual([]);
      // Redelivery may publish an event twice, always under its one event_id: as many distinct ids as a clean run.
      expect(new Set(published.map((e) => e.detail.event_id)).size, where).toBe(expected.size);
      const got = new Set(published.map((e) => e.detailType));
      expect([...got].sort(), where).toEqual([...new Set([...expected].map((k) => k.split(' ').slice(0, 2).join(' ')))].sort());
    }
    console.log(`stream processor: ${dryCalls.length} DynamoDB calls per run, ${runsPlanned.length} faulted runs`);
  }, 300_000);
});

/**
 * The inbound consumer: a batch of task, member and sprint events, the n-th DynamoDB call failing for
 * every n it makes; SQS then delivers the messages reported failed again (as often as needed). It
 * must end with the exact counters, the deleted task's labels gone, and the checker clean.
 */
describe('inbound consumer', () => {
  beforeEach(async () => {
    process.env.TABLE_NAME = 'fault-injection-inbound';
    await ensureTable(admin, process.env.TABLE_NAME);
    checkpoints = {};
  });
  afterEach(async () => {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    process.env.TABLE_NAME = '';
  });

  /** The batch for a fixture already drained. */
  function scenario(f: Fixture) {
    const message = (type: string, detail: Record<string, unknown>, i: number) => ({
      messageId: `m${i}`,
      body: JSON.stringify({
        'detail-type': type,
        source: 'tasks',
        detail: {
          company_slug: f.ws,
          project_slug: f.project,
          event_id: `e${i}`,
          occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          ...detail,
        },
      }),
    });
    const records = [
      message('Task Created', { task_uuid: 'task-1' }, 1),
      message('Task Created', { task_uuid: 'task-2' }, 2),
      message('Task Completed', { task_uuid: 'task-1' }, 3),
      message('Member Added', { username: 'alice' }, 4),
      message('Sprint Created', { sprint_uuid: 's1' }, 5),
      // task-2 carries the fixture's label: its delete takes it off.
      message('Task Deleted', { task_uuid: 'task-2' }, 6),
      message('Task Created', { task_uuid: 'task-2' }, 7),
    ] as unknown as SQSRecord[];
    return { f, records };
  }

  const deadLetters = { put: async () => undefined };
  const expected = { tasks_count: 1, completed_count: 1, members_count: 2, sprints_count: 1 };

  async function check(f: Fixture, where: string) {
    await drain();
    const project = await getProject(f.ws, f.project);
    expect(
      {
        tasks_count: project.tasks_count,
        completed_count: project.completed_count,
        members_count: project.members_count,
        sprints_count: project.sprints_count,
      },
      where,
    ).toEqual(expected);
    expect(await labelsOfTask(f.ws, f.project, 'task-2'), where).toEqual([]);
    expect((await checkTable([f.ws])).violations, where).toEqual([]);
  }

  test('a fault at any call, then redelivery of the failed messages, ends exact', async () => {
    const dry = scenario(await seedFixture('fin'));
    await drain();
    calls = [];
    plan = { failAt: 0 };
    expect((await consumeInbound(dry.records, deadLetters)).batchItemFailures).toEqual([]);
    const dryCalls = [...calls];
    await check(dry.f, 'clean run');
    // A fixture per faulted run, seeded up front a few at a time and drained before the runs.
    const runsPlanned = casesOf(dryCalls, oneFaultPerCall);
    const fixtures = await seedFixtures(runsPlanned.length, 'fin');
    await drain();
    for (const [run, { n, fault }] of runsPlanned.entries()) {
      const { f, records } = scenario(fixtures[run]!);
      calls = [];
      plan = { failAt: n, fault };
      let pending = records;
      let out = await consumeInbound(pending, deadLetters);
      plan = { failAt: 0 };
      for (let delivery = 0; out.batchItemFailures.length && delivery < 5; delivery++) {
        const failed = new Set(out.batchItemFailures.map((b) => b.itemIdentifier));
        pending = pending.filter((r) => failed.has(r.messageId));
        out = await consumeInbound(pending, deadLetters);
      }
      expect(out.batchItemFailures).toEqual([]);
      await check(f, `${fault.name} at consumer call ${n} (${dryCalls[n - 1]})`);
    }
    console.log(`inbound consumer: ${dryCalls.length} DynamoDB calls per batch, ${runsPlanned.length} faulted runs`);
  }, 300_000);
});
