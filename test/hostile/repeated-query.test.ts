import { describe, expect, test } from 'vitest';
import { call, workspaceClient } from '#support/api';

/**
 * A query key given more than once is taken whole or refused, never half-applied: a list parameter
 * (task_uuids, categories) takes every repetition and its comma form; any other parameter repeated
 * with different values is a 422 naming it, and nothing changes.
 */

async function labelledProject() {
  const c = await workspaceClient('rq');
  expect((await c.post('/projects', { name: 'Day One' })).status).toBe(201);
  expect((await c.post('/projects-labels', { title: 'Bug', color: 'FF0000' })).status).toBe(201);
  return c;
}

const tasksCarrying = async (c: Awaited<ReturnType<typeof labelledProject>>) =>
  ((await c.get('/projects-labels/bug/tasks', { project_slug: 'day-one' })).body.data as string[]).sort();

describe('list parameters take every repetition', () => {
  test('attach with task_uuids repeated attaches every task, not only the last', async () => {
    const c = await labelledProject();
    const res = await call('POST', `${c.q('/projects-labels/bug/attach', { project_slug: 'day-one' })}&task_uuids=a&task_uuids=b`, {
      token: c.token,
    });
    expect(res.status).toBe(200);
    expect(await tasksCarrying(c)).toEqual(['a', 'b']);
  });

  test('repetitions and the comma form combine, 4-byte and encoded ids included', async () => {
    const c = await labelledProject();
    const url = `${c.q('/projects-labels/bug/attach', { project_slug: 'day-one' })}&task_uuids=t-1,t-2&task_uuids=t%2D3&task_uuids=t-1`;
    expect((await call('POST', url, { token: c.token })).status).toBe(200);
    expect(await tasksCarrying(c)).toEqual(['t-1', 't-2', 't-3']);
    // One bad repetition refuses the whole request (the rule names its place in the list), nothing attached.
    const bad = `${c.q('/projects-labels/bug/attach', { project_slug: 'day-one' })}&task_uuids=t-4&task_uuids=%F0%9F%98%80`;
    const res = await call('POST', bad, { token: c.token });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['task_uuids[1]']);
    expect(await tasksCarrying(c)).toEqual(['t-1', 't-2', 't-3']);
  });

  test('detach with task_uuids repeated detaches every task', async () => {
    const c = await labelledProject();
    await call('POST', `${c.q('/projects-labels/bug/attach', { project_slug: 'day-one' })}&task_uuids=a,b,c`, { token: c.token });
    const res = await call('DELETE', `${c.q('/projects-labels/bug/detach', { project_slug: 'day-one' })}&task_uuids=a&task_uuids=c`, {
      token: c.token,
    });
    expect(res.status).toBe(200);
    expect(await tasksCarrying(c)).toEqual(['b']);
  });

  test('search categories repeated answers every category asked for', async () => {
    const c = await workspaceClient('rq');
    const res = await call('GET', `${c.q('/search', { q: 'web' })}&categories=projects&categories=tasks`, { token: c.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['projects', 'tasks']);
  });
});

describe('a single-valued parameter repeated', () => {
  test('company_slug twice with different values is a 422 naming it, not a 403 for the last, and nothing is created', async () => {
    const c = await workspaceClient('rq');
    const res = await call('POST', `${c.q('/projects-labels')}&company_slug=other-ws`, {
      token: c.token,
      body: { title: 'Bug', color: 'FF0000' },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      {
        field: 'company_slug',
        message: `company_slug: ["${c.ws}","other-ws"] is given twice with different values; send it once (only task_uuids, categories and type take several)`,
      },
    ]);
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
  });

  test('the same value twice is that value', async () => {
    const c = await workspaceClient('rq');
    const res = await call('GET', `${c.q('/projects', { limit: '2' })}&company_slug=${c.ws}&limit=2`, { token: c.token });
    expect(res.status).toBe(200);
    expect(res.body.meta.limit).toBe(2);
  });

  test.each([
    ['limit', 'limit=1&limit=2'],
    ['project_slug', 'project_slug=day-one&project_slug=other'],
    ['task_uuid', 'project_slug=day-one&task_uuid=a&task_uuid=b'],
    ['page', 'page=1&page=%F0%9F%98%80'],
  ])('%s repeated with different values: 422 naming it', async (field, extra) => {
    const c = await labelledProject();
    const res = await call('GET', `${c.q('/task-labels')}&${extra}`, { token: c.token });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(res.body.errors.find((e: { field: string }) => e.field === field).message).toMatch(/is given twice with different values/);
  });

  test('every repeated parameter is named at once, three repetitions counted', async () => {
    const c = await workspaceClient('rq');
    const res = await call('GET', `${c.q('/projects')}&limit=1&limit=2&limit=3&cursor=a&cursor=b`, { token: c.token });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { message: string }) => e.message)).toEqual([
      'limit: ["1","2","3"] is given 3 times with different values; send it once (only task_uuids, categories and type take several)',
      'cursor: ["a","b"] is given twice with different values; send it once (only task_uuids, categories and type take several)',
    ]);
  });
});
