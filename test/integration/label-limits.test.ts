import { describe, expect, test } from 'vitest';
import { workspaceClient } from '#support/api';
import { attach, expectConsistent, seedLabels } from '#support/labels';

// The limit of 100 labels a task, reached one by one: a file of its own beside label-links.test.ts
// (about 13 s of attaches; label-limit-contention.test.ts reaches it under contention), so that the
// two workers share them.
describe('the labels-per-task limit', () => {
  test('refuses the 101st label on a task with 422', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    // Written straight to the table: the subject is the attaches (seedLabels).
    const labels = await seedLabels(c.ws, 101);
    for (const l of labels.slice(0, 100)) expect((await attach(c, l, 'web', { task_uuid: 't' })).status).toBe(200);
    const res = await attach(c, labels[100]!, 'web', { task_uuid: 't' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('task_uuid');
    expect((await attach(c, labels[5]!, 'web', { task_uuid: 't' })).status).toBe(200);
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't' })).body.data).toHaveLength(100);
    await expectConsistent(c.ws);
  });
});
