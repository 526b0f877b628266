import { describe, expect, test } from 'vitest';
import { scanTable } from '#checker/invariants';
import { settledLabelsCount, settledViolations, streamDrained } from '#support/settle';
import { workspaceClient } from '#support/api';
import { attach, detach, expectConsistent, titles } from '#support/labels';

describe('delete label', () => {
  test('removes the label from every task of every project and fixes labels_count', async () => {
    const c = await workspaceClient();
    for (const p of ['One', 'Two', 'Three']) await c.createProject(p);
    await c.createLabel('Bug');
    await c.createLabel('Keep');
    for (const p of ['one', 'two', 'three']) {
      await attach(c, 'bug', p, { task_uuids: ['a', 'b', 'c'] });
      await attach(c, 'keep', p, { task_uuid: 'a' });
    }
    const res = await c.del('/projects-labels/bug');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: expect.any(Number), slug: 'bug', deleted: true } });
    expect((await c.get('/projects-labels')).body.data.map((l: { slug: string }) => l.slug)).toEqual(['keep']);
    for (const p of ['one', 'two', 'three']) {
      await settledLabelsCount(c, p, 1);
      expect(titles((await c.get('/projects-labels', { project_slug: p, task_uuid: 'a' })).body.data)).toEqual(['Keep']);
      expect((await c.get('/projects-labels', { project_slug: p, task_uuid: 'b' })).body.data).toEqual([]);
    }
    expect((await c.del('/projects-labels/bug')).status).toBe(404);
    // A new label with the same title and slug inherits nothing.
    await c.createLabel('Bug');
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'one' })).body.data).toEqual([]);
    await expectConsistent(c.ws);
  });

  test('deleting a project removes all its links; other projects keep theirs', async () => {
    const c = await workspaceClient();
    await c.createProject('Gone');
    await c.createProject('Stays');
    await c.createLabel('Bug');
    await attach(c, 'bug', 'gone', { task_uuids: ['a', 'b'] });
    await attach(c, 'bug', 'stays', { task_uuid: 'a' });
    expect((await c.del('/projects/gone')).status).toBe(200);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'stays' })).body.data).toEqual(['a']);
    await expectConsistent(c.ws);
  });
});

describe('concurrency', () => {
  test('parallel attach, detach, bulk and delete on the same label, task and project leave the table consistent', async () => {
    const c = await workspaceClient();
    await c.createProject('Hot');
    await c.createProject('Cold');
    const labels = ['A', 'B', 'C', 'D'];
    for (const l of labels) await c.createLabel(l);
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      const label = labels[i % 4]!.toLowerCase();
      const project = i % 3 ? 'hot' : 'cold';
      const task = `t${i % 5}`;
      if (i % 7 === 0) ops.push(attach(c, label, project, { task_uuids: ['t0', 't1', 't2', 't3'] }));
      else if (i % 5 === 0) ops.push(detach(c, label, project, { task_uuid: task }));
      else ops.push(attach(c, label, project, { task_uuid: task }));
      if (i === 30) ops.push(c.del('/projects-labels/c'));
      if (i === 45) ops.push(c.del('/projects/cold'));
    }
    const results = (await Promise.all(ops)) as { status: number }[];
    for (const r of results) expect([200, 404]).toContain(r.status);
    await expectConsistent(c.ws);
    const hot = (await c.get('/projects/hot/stats')).body.data.labels_count;
    let truth = 0;
    for (const l of ['a', 'b', 'd']) if ((await c.get(`/projects-labels/${l}/tasks`, { project_slug: 'hot' })).body.data.length) truth++;
    expect(hot).toBe(truth);
  });
});

describe('large deletes', () => {
  // 420 links: more than one round of the label's cascade (400 items a round), over 4 projects (the bench deletes a label of
  // 10,000 links, BENCHMARKS.md).
  test('deleting a label carried by 420 tasks in 4 projects leaves no link behind', async () => {
    const c = await workspaceClient();
    const projects = ['p1', 'p2', 'p3', 'p4'];
    for (const p of projects) await c.createProject(p);
    await c.createLabel('Wide');
    for (const p of projects) {
      for (let batch = 0; batch < 105; batch += 100) {
        const tasks = Array.from({ length: Math.min(100, 105 - batch) }, (_, i) => `task-${batch + i}`);
        expect((await attach(c, 'wide', p, { task_uuids: tasks })).status).toBe(200);
      }
    }
    await settledLabelsCount(c, 'p1', 1);
    const started = Date.now();
    expect((await c.del('/projects-labels/wide')).status).toBe(200);
    console.log(`label delete with 420 links: ${Date.now() - started} ms (the request; the cascade drains through the stream)`);
    // Gone from every read at once, while the cascade is still draining.
    expect((await c.get('/projects-labels/wide')).status).toBe(404);
    for (const p of projects) expect((await c.get('/projects-labels', { project_slug: p, task_uuid: 'task-7' })).body.data).toEqual([]);
    for (const p of projects) await settledLabelsCount(c, p, 0);
    const leftovers = async () =>
      (await scanTable([c.ws]))
        .filter((i) => i.workspace === c.ws)
        .map((i) => i.type)
        .filter((t) => ['task_link', 'label_link', 'label_use', 'label', 'label_deletion'].includes(t));
    await streamDrained();
    expect(await leftovers()).toEqual([]);
    expect(await settledViolations([c.ws])).toEqual([]);
  });
});
