import { describe, expect, test } from 'vitest';
import { settledLabelsCount } from '#support/settle';
import { workspaceClient } from '#support/api';
import { attach, detach, expectConsistent, titles } from '#support/labels';

describe('attach and detach', () => {
  test('attach answers 200 with the task labels, is idempotent, and counts the label once per project', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    await c.createLabel('Alpha');
    const first = await attach(c, 'bug', 'web', { task_uuid: 'task-1' });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([{ id: expect.any(Number), slug: 'bug', title: 'Bug', color: 'FF5733' }]);
    const again = await attach(c, 'bug', 'web', { task_uuid: 'task-1' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    await attach(c, 'alpha', 'web', { task_uuid: 'task-1' });
    await attach(c, 'bug', 'web', { task_uuid: 'task-2' });
    expect(titles((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 'task-1' })).body.data)).toEqual(['Alpha', 'Bug']);
    await settledLabelsCount(c, 'web', 2);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual(['task-1', 'task-2']);
    await expectConsistent(c.ws);
  });

  test('detach answers 200 with the remaining labels and is idempotent', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    await c.createLabel('UI');
    await attach(c, 'bug', 'web', { task_uuid: 't' });
    await attach(c, 'ui', 'web', { task_uuid: 't' });
    const res = await detach(c, 'bug', 'web', { task_uuid: 't' });
    expect(res.status).toBe(200);
    expect(titles(res.body.data)).toEqual(['UI']);
    const again = await detach(c, 'bug', 'web', { task_uuid: 't' });
    expect(again.status).toBe(200);
    expect(titles(again.body.data)).toEqual(['UI']);
    await settledLabelsCount(c, 'web', 1);
    await detach(c, 'ui', 'web', { task_uuid: 't' });
    await settledLabelsCount(c, 'web', 0);
    await expectConsistent(c.ws);
  });

  test('answers 404 for an unknown label or project and writes nothing', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    expect((await attach(c, 'nope', 'web', { task_uuid: 't' })).status).toBe(404);
    expect((await attach(c, 'bug', 'nope', { task_uuid: 't' })).status).toBe(404);
    expect((await detach(c, 'nope', 'web', { task_uuid: 't' })).status).toBe(404);
    expect((await detach(c, 'bug', 'nope', { task_uuid: 't' })).status).toBe(404);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual([]);
  });

  test('validates task_uuid, task_uuids and project_slug', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    const cases: [unknown, Record<string, string>][] = [
      [{ task_uuid: 'a', task_uuids: ['b'] }, { project_slug: 'web' }],
      [{ task_uuid: 'has#hash' }, { project_slug: 'web' }],
      [{ task_uuid: 'x'.repeat(129) }, { project_slug: 'web' }],
      [{ task_uuids: [] }, { project_slug: 'web' }],
      [{ task_uuids: Array.from({ length: 101 }, (_, i) => `t${i}`) }, { project_slug: 'web' }],
      [{ task_uuid: 't' }, {}],
    ];
    for (const [body, params] of cases) {
      const res = await c.post('/projects-labels/bug/attach', body, params);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await c.del('/projects-labels/bug/detach', undefined, { project_slug: 'web', task_uuid: 'a', task_uuids: 'a,b' })).status).toBe(
      422,
    );
    expect((await c.del('/projects-labels/bug/detach', { task_uuid: 'a' }, { project_slug: 'web', task_uuid: 'b' })).status).toBe(422);
    expect((await c.del('/projects-labels/bug/detach', undefined, { project_slug: 'web', task_uuids: 'a,,b' })).status).toBe(422);
  });

  test('bulk attach and detach answer one entry per task', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    const tasks = Array.from({ length: 70 }, (_, i) => `task-${String(i).padStart(2, '0')}`);
    const res = await attach(c, 'bug', 'web', { task_uuids: tasks });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(70);
    expect(res.body.data[0]).toEqual({ task_uuid: 'task-00', labels: [expect.objectContaining({ slug: 'bug' })] });
    const page = await c.get('/projects-labels/bug/tasks', { project_slug: 'web', limit: '50' });
    expect(page.body.data).toHaveLength(50);
    const rest = await c.get('/projects-labels/bug/tasks', { project_slug: 'web', limit: '50', cursor: page.body.meta.next_cursor });
    expect([...page.body.data, ...rest.body.data]).toEqual(tasks);
    expect(rest.body.meta.next_cursor).toBeNull();
    const off = await detach(c, 'bug', 'web', { task_uuids: tasks.slice(0, 60) });
    expect(off.status).toBe(200);
    expect(off.body.data.every((t: { labels: unknown[] }) => t.labels.length === 0)).toBe(true);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual(tasks.slice(60));
    await settledLabelsCount(c, 'web', 1);
    await expectConsistent(c.ws);
  });
});
