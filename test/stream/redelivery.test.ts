import { keys } from '#store/keys';
import type { DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import type { ActivityEntry } from '#domain/entities';
import { createLabel, deleteLabel } from '#domain/labels';
import { createProject, deleteProject } from '#domain/projects';
import { changeLabels, toggleTaskLabel } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { uniqueWorkspace } from '#support/api';
import { usePrivateTable } from '#support/privateTable';

/**
 * Lambda delivers a shard's records in order but may deliver a batch again (retries, bisection), and
 * records of different items travel on different shards, so their relative order is not guaranteed.
 * Property: however a workload's stream records are interleaved (each item's own records in order),
 * cut into batches and redelivered, the processor ends with the same counters (equal to a recount)
 * and the same set of events as one in-order delivery, and one history entry per event.
 */
const actor = { name: 'Prop', username: 'prop' };
const { drain } = usePrivateTable('stream-redelivery');
/** How far the stream has been read, across runs. */
const tip: Record<string, string> = {};

/** A workload of attaches, detaches, toggles, label-set changes and deletes, written through the domain. */
async function workload(ws: string, seed: number): Promise<void> {
  const rnd = fc.sample(fc.array(fc.nat(1000), { minLength: 60, maxLength: 60 }), { seed, numRuns: 1 })[0]!;
  const projects = [await createProject(ws, { name: 'One', owner: actor }), await createProject(ws, { name: 'Two', owner: actor })];
  const labels = [];
  for (const t of ['A', 'B', 'C']) labels.push(await createLabel(ws, { title: t, color: '112233' }, actor));
  for (let i = 0; i < 30; i++) {
    const r = rnd[i]!;
    const project = projects[r % 2]!.slug;
    const label = labels[(r >> 1) % 3]!.slug;
    const task = `t${(r >> 3) % 4}`;
    const kind = (r >> 5) % 5;
    if (kind === 0) await changeLabels('attach', ws, { labelSlug: label, projectSlug: project, taskUuids: ['t0', 't1', task] }, actor);
    else if (kind === 1) await changeLabels('detach', ws, { labelSlug: label, projectSlug: project, taskUuid: task }, actor);
    else if (kind === 2) await toggleTaskLabel(ws, label, project, task, actor);
    else if (kind === 3) await changeLabels(r % 2 ? 'attach' : 'detach', ws, { labelSlug: label, projectSlug: project }, actor);
    else await changeLabels('attach', ws, { labelSlug: label, projectSlug: project, taskUuid: task }, actor);
  }
  await deleteLabel(ws, labels[2]!.slug, actor);
  await deleteProject(ws, projects[1]!.slug, actor);
}

/** A random interleaving that keeps each item's records in order, cut into batches, some delivered twice. */
function schedule(records: DynamoDBRecord[], rnd: () => number): DynamoDBRecord[][] {
  const byItem = new Map<string, DynamoDBRecord[]>();
  for (const r of records) {
    const key = JSON.stringify(r.dynamodb!.Keys);
    byItem.set(key, [...(byItem.get(key) ?? []), r]);
  }
  const queues = [...byItem.values()];
  const order: DynamoDBRecord[] = [];
  while (queues.length) {
    const i = Math.floor(rnd() * queues.length);
    order.push(queues[i]!.shift()!);
    if (queues[i]!.length === 0) queues.splice(i, 1);
  }
  const batches: DynamoDBRecord[][] = [];
  for (let at = 0; at < order.length; ) {
    const size = 1 + Math.floor(rnd() * 30);
    const batch = order.slice(at, at + size);
    batches.push(batch);
    // A retried batch is delivered again whole; a bisected one in halves.
    if (rnd() < 0.3) batches.push(batch);
    if (rnd() < 0.15) batches.push(batch.slice(0, Math.ceil(batch.length / 2)));
    at += size;
  }
  return batches;
}

test('redelivered and reordered stream batches end with exact counters and the same events', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
      // The workload's records, collected without processing them (from where the last run left the stream).
      await drain(async () => undefined, tip);
      const ws = uniqueWorkspace('prop');
      await workload(ws, seed);
      const records: DynamoDBRecord[] = [];
      const after = { ...tip };
      await drain(async (batch) => void records.push(...batch), after);

      const published: OutboundEvent[] = [];
      const bus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };
      let state = seed;
      const rnd = () => {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        return state / 2 ** 31;
      };
      for (const batch of schedule(records, rnd)) await processStreamBatch(batch, bus);
      // What processing wrote (cascade rounds, counters, the notes of the detaches a label's delete causes) is itself on
      // the stream: deliver it in order.
      const written: DynamoDBRecord[] = [];
      await drain((batch) => {
        written.push(...batch);
        return processStreamBatch(batch, bus);
      }, after);
      Object.assign(tip, after);

      expect((await checkTable([ws])).violations).toEqual([]);
      const left = (await scanTable([ws])).filter(
        (i) => i.workspace === ws && ['project_deletion', 'label_deletion'].includes(i.type as string),
      );
      expect(left).toEqual([]);
      const expectedIds = new Set(
        records
          .filter((r) =>
            ['project', 'label', 'task_link', 'project_label', 'detach_note', 'project_deletion', 'label_deletion'].includes(
              (r.dynamodb?.NewImage?.type?.S as string) ?? '',
            ),
          )
          .filter((r) => r.eventName === 'INSERT' || r.dynamodb?.NewImage?.updated_at?.S !== r.dynamodb?.OldImage?.updated_at?.S)
          .map((r) => r.eventID)
          .concat(written.filter((r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage?.type?.S === 'detach_note').map((r) => r.eventID)),
      );
      expect(new Set(published.map((e) => e.detail.event_id))).toEqual(expectedIds);
      // The history holds one entry per change, however often its record came: one item in the
      // workspace's history, one in its project's for a project's change, one in its task's for a task's.
      const entries = (await scanTable([ws])).filter((i) => i.type === 'activity');
      const inWorkspace = entries.filter((i) => keys.activityShards(ws).includes(String(i.PK))).map((i) => i.entry as ActivityEntry);
      expect(inWorkspace.map((e) => e.event_id).sort()).toEqual([...expectedIds].sort());
      const copies = (part: string) => entries.filter((i) => String(i.PK).includes(part)).map((i) => (i.entry as ActivityEntry).event_id);
      expect(copies('#PROJECTID#').sort()).toEqual(
        inWorkspace
          .filter((e) => e.project_id !== null)
          .map((e) => e.event_id)
          .sort(),
      );
      expect(copies('#TASK#').sort()).toEqual(
        inWorkspace
          .filter((e) => e.task_uuid !== null)
          .map((e) => e.event_id)
          .sort(),
      );
      // And their places are 1, 2, 3...: one each, none skipped.
      expect(inWorkspace.map((e) => e.sequence).sort((a, b) => a! - b!)).toEqual(inWorkspace.map((_, i) => i + 1));
      runs++;
    }),
    { numRuns: 6, seed: 20261122, endOnFailure: true },
  );
  expect(runs).toBe(6);
}, 300_000);
