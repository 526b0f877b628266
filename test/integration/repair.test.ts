import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { checkTable, scanTable } from '#checker/invariants';
import { repairTable } from '#checker/repair';
import { createLabel, deleteLabel } from '#domain/labels';
import { getProject, getProjectWithStats } from '#domain/projects';
import { changeLabels } from '#domain/taskLabels';
import { processStreamBatch } from '#events/processor';
import { db } from '#store/client';
import { keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';
import { seedFixture } from '#support/fixtures';
import { usePrivateTable } from '#support/privateTable';

/**
 * What a stream record lost to the failure destination leaves behind (a stalled cascade, drifted
 * counters) is found by the checker and put right by `npm run repair` (lib/checker/repair.ts).
 */
const table = usePrivateTable('repair-contract');
const checkpoints: Record<string, string> = {};
const drain = (run = true) =>
  table.drain(run ? (records) => processStreamBatch(records, { publish: async () => undefined }) : async () => undefined, checkpoints);

test('repair re-drives a stalled cascade and sets drifted counters to what the table says', async () => {
  const actor = { name: 'Ops', username: 'ops' };
  const f = await seedFixture('repair');
  const doomed = await createLabel(f.ws, { title: 'Doomed', color: '000000' }, actor);
  await changeLabels('attach', f.ws, { labelSlug: doomed.slug, projectSlug: f.project, taskUuids: ['x1', 'x2'] }, actor);
  await drain();
  expect((await checkTable([f.ws])).violations).toEqual([]);

  // Lost records: the label's deletion job never reaches the processor (its cascade stalls)...
  await deleteLabel(f.ws, doomed.slug, actor);
  await drain(false);
  // ...and counters drift: the project's base, on its item and its copies (store/copies.ts: they are written together).
  const project = await getProject(f.ws, f.project);
  const copies = Array.from({ length: WORKSPACE_COPIES }, (_, n) => keys.projectCopy(f.ws, f.project, n));
  for (const Key of [keys.project(f.ws, f.project), ...copies])
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET labels_count = :n, tasks_count = :t',
        ExpressionAttributeValues: { ':n': 7, ':t': 3 },
      }),
    );
  const [fixtureLabel] = (await scanTable([f.ws])).filter((i) => i.workspace === f.ws && i.type === 'label' && i.slug === f.label);
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelUse(project.id, fixtureLabel!.id) }));
  expect((await checkTable([f.ws])).violations.length).toBeGreaterThan(0);

  const dry = await repairTable({ dryRun: true });
  expect(dry.jobsRedriven).toBe(1);
  expect((await checkTable([f.ws])).violations.length).toBeGreaterThan(0);
  const report = await repairTable({ dryRun: false });
  expect(report.countersFixed.length).toBeGreaterThanOrEqual(2);
  await drain();
  expect((await checkTable([f.ws])).violations).toEqual([]);
  const items = await scanTable([f.ws]);
  // Nothing of the label is left but the notes of the detaches its delete caused (their events) and its mark in each shard
  // of its collection (store/tombstones.ts), all expiring within a day.
  const left = items.filter((i) => i.workspace === f.ws && (i.label_id === doomed.id || i.type === 'label_deletion'));
  expect(left.filter((i) => i.type !== 'detach_note' && i.type !== 'tombstone')).toEqual([]);
  expect(
    left
      .filter((i) => i.type === 'tombstone')
      .map((i) => i.PK as string)
      .sort(),
  ).toEqual(keys.labelCollectionShards(f.ws, doomed.id).sort());
  expect(
    left
      .filter((i) => i.type === 'detach_note')
      .map((i) => [i.task_uuid, i.label_title, typeof i.ttl])
      .sort(),
  ).toEqual([
    ['x1', 'Doomed', 'number'],
    ['x2', 'Doomed', 'number'],
  ]);
  expect((await getProjectWithStats(f.ws, f.project)).labels_count).toBe(2);
  expect((await getProjectWithStats(f.ws, f.project)).tasks_count).toBe(0);
});
