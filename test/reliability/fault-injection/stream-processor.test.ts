import { describe, expect, test } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { chunk } from '#store/batches';
import { createLabel, deleteLabel } from '#domain/labels';
import { deleteProject } from '#domain/projects';
import { changeLabels } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import {
  caseViolations,
  casesOf,
  drain,
  expectFewShort,
  faultedByKind,
  injector,
  oneFaultPerCall,
  published,
  skipStream,
  tableEachTest,
} from '#support/faults';
import { cloneFixtures, fixtureItems, seedFixture } from '#support/fixtures';
import type { Fixture } from '#support/requests';

/**
 * The stream processor itself: deletes (cascades), detaches and attaches are written, then the
 * processor runs over them with its n-th DynamoDB call failing, for every n it makes; the stream then
 * delivers again (from the last checkpoint, as Lambda does). It must end with nothing orphaned, the
 * counters exact, and every event published, the same ids as a run without faults.
 */
describe('stream processor', () => {
  const actor = { name: 'Seed', username: 'seed' };
  tableEachTest(() => 'stream');

  /** On a fixture already drained, a change of every kind the processor acts on. Returns the workspace. */
  async function scenario(f: Fixture): Promise<string> {
    published.length = 0;
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
    const template = await fixtureItems(first);
    const ws = await scenario(first);
    injector.arm();
    await drain();
    const dryCalls = [...injector.calls];
    const expected = new Set(published.map(eventKey));
    expect([...expected].map((k) => k.split(' ').slice(0, 2).join(' ')).sort()).toEqual(
      [
        'Label Attached',
        'Label Attached',
        'Label Attached',
        'Label Created',
        'Label Deleted',
        'Label Detached',
        // The fixture label's delete takes it off its three tasks: a detach each.
        'Label Detached',
        'Label Detached',
        'Label Detached',
        'Project Deleted',
      ].sort(),
    );
    expect((await checkTable([ws])).violations).toEqual([]);
    // What stays: the labels (and their copies, store/copies.ts), their guards, id counter and count, and what expires by itself (detach notes; stream receipts,
    // which have partitions of their own, RECEIPT#<event id>, and so are no project's to cascade; the history's entries,
    // which outlive what they describe until their retention ends, and their marks; a deleted project's or label's marks
    // in its shards, store/tombstones.ts, which the checker above holds to ids that are gone). The history's position and
    // layout stay.
    const expiring = [
      'tombstone',
      'detach_note',
      'stream_receipt',
      'activity',
      'activity_mark',
      'activity_slug',
      'activity_sequence',
      'activity_layout',
    ];
    expect(
      (await scanTable([ws])).filter(
        (i) =>
          i.workspace === ws &&
          i.type !== 'label' &&
          i.type !== 'label_copy' &&
          i.type !== 'label_title' &&
          i.type !== 'label_title_own' &&
          i.type !== 'label_id_counter' &&
          i.type !== 'label_count' &&
          !expiring.includes(i.type as string),
      ),
    ).toEqual([]);

    // A fixture per faulted run: copies of the first, as it was before its scenario (test/support/fixtures.ts).
    const runsPlanned = casesOf(dryCalls, oneFaultPerCall);
    const fixtures = await cloneFixtures(template, runsPlanned.length, 'fs');
    await skipStream();
    // Every run first (its scenario, the faulted batch, the redelivery, the events it published), then one check of every
    // run's workspace: a scan of the table per run read every other run's fixture too, and was most of the time.
    const runs: { where: string; ws: string }[] = [];
    const short: string[] = [];
    for (const [run, { n, fault }] of runsPlanned.entries()) {
      const ws = await scenario(fixtures[run]!);
      // As the n-th call's kind of call counts: the calls of different kinds may interleave otherwise than dry.
      const { where, reached } = await faultedByKind(dryCalls, n, fault, 'processor', () => drain().catch(() => undefined));
      if (!reached) short.push(where);
      // A failed batch leaves no call running: its redelivery would race it.
      expect(injector.inFlight, `${where}: DynamoDB calls still running after the batch failed`).toBe(0);
      await drain();
      // Redelivery may publish an event twice, always under its one event_id: as many distinct ids as a clean run.
      expect(new Set(published.map((e) => e.detail.event_id)).size, where).toBe(expected.size);
      const got = new Set(published.map((e) => e.detailType));
      expect([...got].sort(), where).toEqual([...new Set([...expected].map((k) => k.split(' ').slice(0, 2).join(' ')))].sort());
      runs.push({ where, ws });
    }
    expectFewShort(short, runsPlanned.length);
    // Nothing a later run does touches an earlier run's workspace, whose stream is drained by then.
    expect(await caseViolations(runs)).toEqual([]);
    const cascaded = [
      'task_link',
      'label_link',
      'label_use',
      'project_label',
      'label_project',
      'task_version',
      'project_deletion',
      'label_deletion',
      'project',
    ];
    // 100 workspaces a scan, as the checker's (its filter's IN takes at most 100 values).
    const scanned = await Promise.all(chunk(runs, 100).map((some) => scanTable(some.map((r) => r.ws))));
    const left = scanned.flat().filter((i) => cascaded.includes(i.type as string));
    for (const { where, ws } of runs)
      expect(
        left.filter((i) => i.workspace === ws),
        where,
      ).toEqual([]);
    console.log(
      `stream processor: ${dryCalls.length} DynamoDB calls per run, ${runsPlanned.length} faulted runs, ${short.length} not reached`,
    );
  }, 300_000);
});
