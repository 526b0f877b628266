import { expect, test } from 'vitest';
import { call, tokenFor, uniqueWorkspace } from '#support/api';
import { emitInbound } from '#support/inbound';
import { settledViolations, streamDrained } from '#support/settle';

/**
 * Ids where one is a prefix of another stay apart on every read, list, count and cascade: tasks
 * t1/t10, labels bug/bug-2, projects web/web-2, workspaces <ws>/<ws>-corp. (test/unit/key-boundaries
 * pins the keys themselves; this drives the same neighbours through the API.)
 */
test('neighbouring ids never see, count or delete each other', async () => {
  const ws = uniqueWorkspace('nb');
  const corp = `${ws}-corp`;
  const token = await tokenFor([ws, corp]);
  const send = (method: string, path: string, w: string, query: Record<string, string> = {}, body?: unknown) =>
    call(method, `${path}?${new URLSearchParams({ company_slug: w, ...query })}`, { token, ...(body === undefined ? {} : { body }) });
  const labelsOf = async (w: string, project: string, task: string) =>
    (await send('GET', '/projects-labels', w, { project_slug: project, task_uuid: task })).body.data.map((l: { slug: string }) => l.slug);
  const tasksOf = async (w: string, label: string, project: string) =>
    (await send('GET', `/projects-labels/${label}/tasks`, w, { project_slug: project })).body.data as string[];
  const attach = async (w: string, label: string, project: string, task: string) =>
    expect((await send('POST', `/projects-labels/${label}/attach`, w, { project_slug: project }, { task_uuid: task })).status).toBe(200);

  for (const w of [ws, corp]) {
    for (const name of ['Web', 'Web 2'])
      expect((await send('POST', '/projects', w, {}, { company_slug: w, name })).body.data.slug).toMatch(/^web(-2)?$/);
    for (const title of ['Bug', 'Bug 2'])
      expect((await send('POST', '/projects-labels', w, {}, { title, color: 'FF0000' })).status).toBe(201);
  }
  await attach(ws, 'bug', 'web', 't1');
  await attach(ws, 'bug-2', 'web', 't10');
  await attach(ws, 'bug', 'web-2', 't10');
  await attach(corp, 'bug', 'web', 't1');
  await attach(corp, 'bug', 'web', 't10');

  // Reads: each task, label and project its own.
  expect(await labelsOf(ws, 'web', 't1')).toEqual(['bug']);
  expect(await labelsOf(ws, 'web', 't10')).toEqual(['bug-2']);
  expect(await labelsOf(ws, 'web-2', 't1')).toEqual([]);
  expect(await labelsOf(ws, 'web-2', 't10')).toEqual(['bug']);
  expect(await tasksOf(ws, 'bug', 'web')).toEqual(['t1']);
  expect(await tasksOf(ws, 'bug-2', 'web')).toEqual(['t10']);
  expect(await tasksOf(ws, 'bug', 'web-2')).toEqual(['t10']);
  expect(await tasksOf(corp, 'bug', 'web')).toEqual(['t1', 't10']);
  expect(await tasksOf(corp, 'bug-2', 'web')).toEqual([]);
  expect((await send('GET', '/projects-labels', ws)).body.data.map((l: { slug: string }) => l.slug)).toEqual(['bug', 'bug-2']);

  // Counts.
  await streamDrained();
  const stats = async (w: string, p: string) => (await send('GET', `/projects/${p}/stats`, w)).body.data.labels_count;
  expect([await stats(ws, 'web'), await stats(ws, 'web-2'), await stats(corp, 'web'), await stats(corp, 'web-2')]).toEqual([2, 1, 1, 0]);

  // Cascades: a detach, a label delete, a task deleted elsewhere and a project delete each stay on their side.
  expect((await send('DELETE', '/projects-labels/bug/detach', ws, { project_slug: 'web' }, { task_uuid: 't1' })).status).toBe(200);
  expect(await labelsOf(ws, 'web', 't10')).toEqual(['bug-2']);
  await attach(ws, 'bug', 'web', 't1');
  expect((await send('DELETE', '/projects-labels/bug', ws)).status).toBe(200);
  await streamDrained();
  expect(await labelsOf(ws, 'web', 't10')).toEqual(['bug-2']);
  expect(await tasksOf(corp, 'bug', 'web')).toEqual(['t1', 't10']);
  await emitInbound('Task Deleted', {
    company_slug: corp,
    project_slug: 'web',
    task_uuid: 't1',
    event_id: `${corp}-t1`,
    occurred_at: new Date().toISOString(),
  });
  await expect.poll(() => tasksOf(corp, 'bug', 'web'), { timeout: 10_000, interval: 50 }).toEqual(['t10']);
  expect((await send('DELETE', '/projects/web', ws)).status).toBe(200);
  await streamDrained();
  expect((await send('GET', '/projects/web-2', ws)).status).toBe(200);
  expect(await labelsOf(ws, 'web-2', 't10')).toEqual([]); // bug was deleted above, nothing else
  expect((await send('GET', '/projects/web', corp)).status).toBe(200);
  expect(await labelsOf(corp, 'web', 't10')).toEqual(['bug']);
  expect([await stats(corp, 'web')]).toEqual([1]);
  expect(await settledViolations([ws, corp])).toEqual([]);
});
