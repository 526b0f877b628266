import fc from 'fast-check';
import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { INBOUND_TYPES, type InboundType } from '#domain/eventNames';
import { applyInboundEvent, type InboundEvent } from '#domain/inbound';
import type { DynamoDBRecord } from 'aws-lambda';
import { createProject, getProjectWithStats } from '#domain/projects';
import { processStreamBatch } from '#events/processor';
import { readProject } from '#store/projects';
import { uniqueWorkspace } from '#support/api';
import { usePrivateTable } from '#support/privateTable';

/**
 * Property: any sequence of inbound events, duplicated and shuffled, and applied with some running
 * concurrently, ends with the counters of a plain sequential model that applies the deduplicated
 * events in occurred_at order; and open_count (tasks - completed) is never negative. The counters move through the
 * table's stream (store/projectStats.ts), whose records are handed to the processor as a hostile Lambda would: in
 * batches split anywhere, some delivered again after they went through, some with their first half alone first (a
 * bisection); each record still counts once.
 */
const { drain } = usePrivateTable('inbound-property');
const tip: Record<string, string> = {};
const bus = { publish: async () => undefined };

/** Uniform numbers in [0, 1) from a seed (mulberry32): batch sizes spread evenly, where fast-check's doubles lean to the edges. */
function seeded(seed: number): Iterator<number> {
  let a = seed;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return { done: false, value: ((t ^ (t >>> 14)) >>> 0) / 4294967296 };
    },
  };
}

/** The stream's records since the last drain, through the processor in random batches, some again and some in part first. */
async function processHostilely(random: Iterator<number>) {
  const records: DynamoDBRecord[] = [];
  await drain(async (batch) => void records.push(...batch), tip);
  let at = 0;
  while (at < records.length) {
    const size = 1 + Math.floor(random.next().value * 24);
    const batch = records.slice(at, at + size);
    if (random.next().value < 0.3) await processStreamBatch(batch.slice(0, Math.ceil(batch.length / 2)), bus);
    await processStreamBatch(batch, bus);
    if (random.next().value < 0.3) await processStreamBatch(batch, bus); // delivered again
    at += size;
  }
  return records.length;
}
const OWNER = { name: 'Owner', username: 'owner' };

/** The reference: one pass, in occurred_at order, over the deduplicated events. */
function reference(events: InboundEvent[]) {
  const tasks = new Map<string, { created: boolean; deleted: boolean; completed: boolean }>();
  const members = new Map<string, boolean>();
  const sprints = new Map<string, { created: boolean; deleted: boolean }>();
  const unique = [...new Map(events.map((e) => [e.eventId, e])).values()].sort((a, b) =>
    a.occurredAt === b.occurredAt ? (a.eventId < b.eventId ? -1 : 1) : a.occurredAt < b.occurredAt ? -1 : 1,
  );
  for (const e of unique) {
    const task = tasks.get(e.subject) ?? { created: false, deleted: false, completed: false };
    const sprint = sprints.get(e.subject) ?? { created: false, deleted: false };
    if (e.type === 'Task Created') tasks.set(e.subject, { ...task, created: true });
    if (e.type === 'Task Deleted') tasks.set(e.subject, { ...task, deleted: true });
    if (e.type === 'Task Completed') tasks.set(e.subject, { ...task, completed: true });
    if (e.type === 'Task Reopened') tasks.set(e.subject, { ...task, completed: false });
    if (e.type === 'Member Added' && e.subject !== OWNER.username) members.set(e.subject, true);
    if (e.type === 'Member Removed' && e.subject !== OWNER.username) members.set(e.subject, false);
    if (e.type === 'Sprint Created') sprints.set(e.subject, { ...sprint, created: true });
    if (e.type === 'Sprint Deleted') sprints.set(e.subject, { ...sprint, deleted: true });
  }
  const live = [...tasks.values()].filter((t) => t.created && !t.deleted);
  return {
    tasks_count: live.length,
    completed_count: live.filter((t) => t.completed).length,
    members_count: 1 + [...members.values()].filter(Boolean).length,
    sprints_count: [...sprints.values()].filter((s) => s.created && !s.deleted).length,
  };
}

const eventArb = fc.record({
  type: fc.constantFrom(...INBOUND_TYPES),
  subject: fc.constantFrom('a', 'b', 'c', 'owner'),
  second: fc.integer({ min: 0, max: 30 }),
});

test('duplicated, shuffled and concurrent inbound events end with the counters of the ordered sequence', async () => {
  // Each run applies its events; the stream of all of them goes through the processor at the end (one drain of the
  // stream, not one a run), split and delivered again across runs' records alike, and every run is then held to its model.
  const runs: { ws: string; slug: string; expected: ReturnType<typeof reference> }[] = [];
  await drain(async () => undefined, tip);
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(fc.nat(), { maxLength: 20 }),
      fc.integer({ min: 1, max: 4 }),
      fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
      async (drawn, dupes, concurrency, random) => {
        const ws = uniqueWorkspace('inprop');
        const project = await createProject(ws, { name: 'Stats', owner: OWNER });
        const events: InboundEvent[] = drawn.map((d, i) => ({
          type: d.type as InboundType,
          eventId: `e${i}`,
          ws,
          projectSlug: project.slug,
          // After the project's creation (an event older than its project does not count).
          occurredAt: new Date(Date.parse(project.created_at) + 1000 * (1 + d.second)).toISOString(),
          subject: d.subject,
        }));
        // Redeliveries, then a shuffle.
        const delivered = [...events, ...dupes.map((k) => events[k % events.length]!)];
        const it = random[Symbol.iterator]();
        for (let i = delivered.length - 1; i > 0; i--) {
          const j = Math.floor(it.next().value * (i + 1));
          [delivered[i], delivered[j]] = [delivered[j]!, delivered[i]!];
        }
        for (let i = 0; i < delivered.length; i += concurrency)
          await Promise.all(delivered.slice(i, i + concurrency).map(applyInboundEvent));
        runs.push({ ws, slug: project.slug, expected: reference(events) });
      },
    ),
    { numRuns: 25, seed: 20261122, endOnFailure: true },
  );
  expect(runs).toHaveLength(25);
  expect(await processHostilely(seeded(20261203))).toBeGreaterThan(25);
  for (const run of runs) {
    const got = await getProjectWithStats(run.ws, run.slug);
    const stats = {
      tasks_count: got.tasks_count,
      completed_count: got.completed_count,
      members_count: got.members_count,
      sprints_count: got.sprints_count,
    };
    expect(stats, run.ws).toEqual(run.expected);
    expect(got.tasks_count - got.completed_count).toBeGreaterThanOrEqual(0);
    // Counted through the stream: the project item's own counters stayed as the project began.
    expect((await readProject(run.ws, run.slug))!).toMatchObject({
      tasks_count: 0,
      completed_count: 0,
      members_count: 1,
      sprints_count: 0,
    });
  }
  expect((await checkTable(runs.map((r) => r.ws))).violations).toEqual([]);
}, 300_000);
