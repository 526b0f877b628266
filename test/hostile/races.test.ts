import { describe, expect, test } from 'vitest';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { scanTable } from '#checker/invariants';
import { db } from '#store/client';
import { tableName } from '#store/table';
import { settledViolations, settledLabelsCount } from '#support/settle';
import { workspaceClient } from '#support/api';
import { seedLabels } from '#support/labels';

describe('races that used to produce duplicates or partial writes', () => {
  test('ten parallel duplicates of one project get ten distinct copy names', async () => {
    const c = await workspaceClient('race');
    await c.createProject('Plan');
    const results = await Promise.all(Array.from({ length: 10 }, () => c.post('/projects/plan/duplicate')));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const names = results.map((r) => r.body.data.name as string);
    expect(new Set(names).size).toBe(10);
    for (const name of names) expect(name).toMatch(/^Plan \(copy( \d+)?\)$/);
    expect(await settledViolations([c.ws])).toEqual([]);
  });

  test('a bulk attach where a later task is already full is a 422 that changes nothing', async () => {
    const c = await workspaceClient('race');
    await c.createProject('Web');
    // Written straight to the table: the subject is the bulk attach (seedLabels).
    const labels = (await seedLabels(c.ws, 101)).map((slug) => ({ slug }));
    // A few at a time: writers of one task contend for its version, and 25 at once can exhaust the
    // retries (a 503 to retry, as the service documents), which is not what this test is about.
    for (let i = 0; i < 100; i += 5) {
      const batch = await Promise.all(
        labels.slice(i, i + 5).map((l) => c.post(`/projects-labels/${l.slug}/attach`, { task_uuid: 'full' }, { project_slug: 'web' })),
      );
      expect(batch.map((r) => r.status)).toEqual(batch.map(() => 200));
    }
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 'full' })).body.data).toHaveLength(100);
    const tasks = [...Array.from({ length: 70 }, (_, i) => `t-${i}`), 'full'];
    const doomed = labels[100]!;
    const res = await c.post(`/projects-labels/${doomed.slug}/attach`, { task_uuids: tasks }, { project_slug: 'web' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'task_uuids', message: expect.stringContaining('full') }]);
    expect((await c.get(`/projects-labels/${doomed.slug}/tasks`, { project_slug: 'web' })).body.data).toEqual([]);
    await settledLabelsCount(c, 'web', 100);
    expect(await settledViolations([c.ws])).toEqual([]);
  });
});

describe('copy names of long and astral names', () => {
  test('a name of emoji is shortened between characters: well-formed, within 255 characters', async () => {
    const c = await workspaceClient('race');
    const { slug } = await c.createProject(`a${'😀'.repeat(200)}`);
    for (const suffix of [' (copy)', ' (copy 2)']) {
      const res = await c.post(`/projects/${slug}/duplicate`);
      expect(res.status, res.text).toBe(201);
      const name = res.body.data.name as string;
      expect(name.isWellFormed()).toBe(true);
      expect(name.endsWith(suffix)).toBe(true);
      expect(name.startsWith(`a${'😀'.repeat(180)}`)).toBe(true);
    }
  });

  test('copies of a 255-character name are numbered on after the claims expire (the stems differ)', async () => {
    const c = await workspaceClient('race');
    const { slug } = await c.createProject('L'.repeat(255));
    const names = [];
    for (let i = 0; i < 3; i++) names.push((await c.post(`/projects/${slug}/duplicate`)).body.data.name as string);
    // Claims are short-lived: drop them, as their expiry would, so only the name index decides.
    const claims = (await scanTable([c.ws])).filter((i) => i.workspace === c.ws && i.type === 'copy_name_claim');
    await Promise.all(claims.map((i) => db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: i.PK, SK: i.SK } }))));
    await new Promise((r) => setTimeout(r, 500)); // the name index catches up
    names.push((await c.post(`/projects/${slug}/duplicate`)).body.data.name as string);
    expect(names.map((n) => n.slice(n.lastIndexOf(' ('))).sort()).toEqual([' (copy 2)', ' (copy 3)', ' (copy 4)', ' (copy)']);
  });
});
