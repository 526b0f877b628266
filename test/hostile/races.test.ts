import { describe, expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { workspaceClient } from '#support/api';

describe('races that used to produce duplicates or partial writes', () => {
  test('ten parallel duplicates of one project get ten distinct copy names', async () => {
    const c = await workspaceClient('race');
    await c.createProject('Plan');
    const results = await Promise.all(Array.from({ length: 10 }, () => c.post('/projects/plan/duplicate')));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const names = results.map((r) => r.body.data.name as string);
    expect(new Set(names).size).toBe(10);
    for (const name of names) expect(name).toMatch(/^Plan \(copy( \d+)?\)$/);
    expect((await checkTable([c.ws])).violations).toEqual([]);
  });

  test('a bulk attach where a later task is already full is a 422 that changes nothing', async () => {
    const c = await workspaceClient('race');
    await c.createProject('Web');
    const labels = await Promise.all(Array.from({ length: 101 }, (_, i) => c.createLabel(`L${i}`)));
    for (let i = 0; i < 100; i += 25) {
      await Promise.all(
        labels.slice(i, i + 25).map((l) => c.post(`/projects-labels/${l.slug}/attach`, { task_uuid: 'full' }, { project_slug: 'web' })),
      );
    }
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 'full' })).body.data).toHaveLength(100);
    const tasks = [...Array.from({ length: 70 }, (_, i) => `t-${i}`), 'full'];
    const doomed = labels[100]!;
    const res = await c.post(`/projects-labels/${doomed.slug}/attach`, { task_uuids: tasks }, { project_slug: 'web' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'task_uuids', message: expect.stringContaining('full') }]);
    expect((await c.get(`/projects-labels/${doomed.slug}/tasks`, { project_slug: 'web' })).body.data).toEqual([]);
    expect((await c.get('/projects/web/stats')).body.data.labels_count).toBe(100);
    expect((await checkTable([c.ws])).violations).toEqual([]);
  });
});
