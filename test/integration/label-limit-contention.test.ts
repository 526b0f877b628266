import { describe, expect, test } from 'vitest';
import { workspaceClient } from '#support/api';
import { attach, expectConsistent, seedLabels } from '#support/labels';

// The limit of 100 labels a task under contention: a file of its own (about 13 s of attaches; see
// label-limits.test.ts), so that the two workers share the label tests.
describe('the labels-per-task limit', () => {
  test('concurrent attaches to one task never exceed the limit', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    // Written straight to the table: the subject is the attaches (seedLabels).
    const labels = (await seedLabels(c.ws, 120)).map((slug) => ({ slug }));
    await attach(c, labels[0]!.slug, 'web', { task_uuid: 't' });
    // 95 more, a few at a time (they contend for the task's version, which retries absorb).
    for (let i = 1; i < 96; i += 5) {
      const batch = await Promise.all(labels.slice(i, Math.min(96, i + 5)).map((l) => attach(c, l.slug, 'web', { task_uuid: 't' })));
      expect(batch.map((r) => r.status)).toEqual(batch.map(() => 200));
    }
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't' })).body.data).toHaveLength(96);
    const results = await Promise.all(labels.slice(96).map((l) => attach(c, l.slug, 'web', { task_uuid: 't' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(results.filter((r) => r.status === 422)).toHaveLength(20);
    await expectConsistent(c.ws);
  });
});
