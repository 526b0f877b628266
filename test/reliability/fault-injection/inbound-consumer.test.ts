import type { SQSRecord } from 'aws-lambda';
import { describe, expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { getProjectWithStats } from '#domain/projects';
import { labelsOfTask } from '#domain/taskLabels';
import { consumeInbound } from '#events/inbound';
import { casesOf, drain, expectFewShort, faultedByKind, injector, oneFaultPerCall, skipStream, tableEachTest } from '#support/faults';
import { cloneFixtures, fixtureItems, seedFixture } from '#support/fixtures';
import type { Fixture } from '#support/requests';

/**
 * The inbound consumer: a batch of task, member and sprint events, the n-th DynamoDB call failing for
 * every n it makes; SQS then delivers the messages reported failed again (as often as needed). It
 * must end with the exact counters, the deleted task's labels gone, and the checker clean.
 */
describe('inbound consumer', () => {
  tableEachTest(() => 'inbound');

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
          // After the fixture's project was created (an event older than its project does not count).
          occurred_at: new Date(Date.now() + 1000 * i).toISOString(),
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
    const project = await getProjectWithStats(f.ws, f.project);
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
    const seeded = await seedFixture('fin');
    await drain();
    const template = await fixtureItems(seeded);
    const dry = scenario(seeded);
    injector.arm();
    expect((await consumeInbound(dry.records, deadLetters)).batchItemFailures).toEqual([]);
    const dryCalls = [...injector.calls];
    await check(dry.f, 'clean run');
    // A fixture per faulted run: copies of the first, as it was before its events (test/support/fixtures.ts).
    const runsPlanned = casesOf(dryCalls, oneFaultPerCall);
    const fixtures = await cloneFixtures(template, runsPlanned.length, 'fin');
    await skipStream();
    const short: string[] = [];
    for (const [run, { n, fault }] of runsPlanned.entries()) {
      const { f, records } = scenario(fixtures[run]!);
      // As the n-th call's kind of call counts: the calls of different kinds may interleave otherwise than dry.
      const faulted = await faultedByKind(dryCalls, n, fault, 'consumer', () => consumeInbound(records, deadLetters));
      const { where } = faulted;
      if (!faulted.reached) short.push(where);
      let pending = records;
      let out = faulted.result;
      // A batch with failures leaves no call running: the redelivery of its failures would race it.
      expect(injector.inFlight, `${where}: DynamoDB calls still running`).toBe(0);
      for (let delivery = 0; out.batchItemFailures.length && delivery < 5; delivery++) {
        const failed = new Set(out.batchItemFailures.map((b) => b.itemIdentifier));
        pending = pending.filter((r) => failed.has(r.messageId));
        out = await consumeInbound(pending, deadLetters);
      }
      expect(out.batchItemFailures).toEqual([]);
      await check(f, where);
    }
    expectFewShort(short, runsPlanned.length);
    console.log(
      `inbound consumer: ${dryCalls.length} DynamoDB calls per batch, ${runsPlanned.length} faulted runs, ${short.length} not reached`,
    );
  }, 300_000);
});
