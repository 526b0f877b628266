import { describe, expect, test } from 'vitest';
import { call, workspaceClient, type Response } from '#support/api';

/**
 * Every answer of the API, the functions' and the gateway's own, is never cached, never sniffed,
 * and names the request it answers (the id a problem body carries as `request_id`): a function's
 * answer in X-Request-Id (the function's request id, `request_id` in its log line).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectStandardHeaders(res: Response, status: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toMatch(UUID);
  if (status >= 400) expect(res.body.request_id).toBe(requestId);
}

describe('response headers', () => {
  test('on reads, creates, updates and deletes', async () => {
    const c = await workspaceClient('headers');
    const created = await c.post('/projects', { company_slug: c.ws, name: 'Web' });
    expectStandardHeaders(created, 201);
    expectStandardHeaders(await c.get('/projects/web'), 200);
    expectStandardHeaders(await c.get('/projects'), 200);
    expectStandardHeaders(await c.put('/projects/web', { description: 'd' }), 200);
    expectStandardHeaders(await c.post('/projects-labels', { title: 'Bug', color: 'FF0000' }), 201);
    expectStandardHeaders(await c.post('/projects-labels/bug/attach', { task_uuid: 't' }, { project_slug: 'web' }), 200);
    expectStandardHeaders(await c.del('/projects/web'), 200);
  });

  test("on the functions' problems: 404, 409, 422", async () => {
    const c = await workspaceClient('headers');
    expectStandardHeaders(await c.get('/projects/nothing-here'), 404);
    await c.createLabel('Bug');
    expectStandardHeaders(await c.post('/projects-labels', { title: 'bug', color: 'FF0000' }), 409);
    expectStandardHeaders(await c.post('/projects', { company_slug: c.ws, name: '' }), 422);
  });

  test("on the gateway's own answers: no token, a refused token, an unknown route", async () => {
    // API Gateway cannot put its request id in a header of its own answers; it sends x-amzn-RequestId
    // on every answer, as the local gateway does, and the problem body carries the same id.
    const c = await workspaceClient('headers');
    for (const [res, status] of [
      [await call('GET', c.q('/projects'), { token: null }), 401],
      [await call('GET', c.q('/projects'), { token: 'pls_not-a-real-token' }), 401],
      [await c.get('/no-such-route'), 404],
    ] as const) {
      expect(res.status, res.text).toBe(status);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-amzn-requestid')).toBe(res.body.request_id);
      expect(res.body.request_id).toMatch(UUID);
    }
  });

  test("every answer names API Gateway's request id too (x-amzn-RequestId), distinct from the function's", async () => {
    const c = await workspaceClient('headers');
    const res = await c.get('/projects');
    expect(res.headers.get('x-amzn-requestid')).toMatch(UUID);
    expect(res.headers.get('x-amzn-requestid')).not.toBe(res.headers.get('x-request-id'));
  });

  test('two answers never share a request id', async () => {
    const c = await workspaceClient('headers');
    const [a, b] = await Promise.all([c.get('/projects'), c.get('/projects')]);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});
