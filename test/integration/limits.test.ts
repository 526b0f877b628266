import { describe, expect, test } from 'vitest';
import { call, workspaceClient } from '#support/api';

/** Resource limits (OWASP API4, unrestricted resource consumption) and body handling. */
describe('limits and body handling', () => {
  test('a body over 64 KB gets 413 and creates nothing', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: 'Big', description: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect((await c.get('/projects')).body.data).toEqual([]);
  });

  test('64 KB of multi-byte characters is measured in bytes', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: 'Big', description: 'é'.repeat(33_000) });
    expect(res.status).toBe(413);
  });

  test('10,000-character fields: description accepted at the limit, every other field refused', async () => {
    const c = await workspaceClient();
    expect((await c.post('/projects', { name: 'Desc', description: 'd'.repeat(10_000) })).status).toBe(201);
    expect((await c.post('/projects', { name: 'Desc', description: 'd'.repeat(10_001) })).status).toBe(422);
    expect((await c.post('/projects', { name: 'n'.repeat(10_000) })).status).toBe(422);
    expect((await c.post('/projects-labels', { title: 't'.repeat(10_000), color: 'FFFFFF' })).status).toBe(422);
    expect((await c.get('/projects', { name: 'n'.repeat(10_000) })).status).toBe(422);
    await c.createProject('Web');
    await c.createLabel('Bug');
    expect((await c.post('/projects-labels/bug/attach', { task_uuid: 'u'.repeat(10_000) }, { project_slug: 'web' })).status).toBe(422);
  });

  test('page sizes over 100 are refused on every paginated route', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    for (const [path, params] of [
      ['/projects', {}],
      ['/projects', { name: 'w' }],
      ['/projects', { status: 'completed' }],
      ['/projects-labels/bug/tasks', { project_slug: 'web' }],
    ] as const) {
      for (const key of ['limit', 'per_page']) {
        const res = await c.get(path, { ...params, [key]: '101' });
        expect(res.status, `${path} ${key}`).toBe(422);
        expect(res.body.errors[0].field).toBe(key);
      }
    }
  });

  test('a body that is not application/json gets 415', async () => {
    const c = await workspaceClient();
    const res = await call('POST', '/projects', {
      token: c.token,
      rawBody: `name=x&company_slug=${c.ws}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    const none = await call('POST', '/projects', { token: c.token, rawBody: JSON.stringify({ name: 'x', company_slug: c.ws }) });
    expect(none.status).toBe(415);
  });

  test('invalid JSON gets 400; JSON that is not an object gets 422', async () => {
    const c = await workspaceClient();
    const headers = { 'content-type': 'application/json' };
    expect((await call('POST', c.q('/projects-labels'), { token: c.token, rawBody: '{"title":', headers })).status).toBe(400);
    for (const rawBody of ['[]', '"text"', '42', 'null']) {
      const res = await call('POST', c.q('/projects-labels'), { token: c.token, rawBody, headers });
      expect(res.status, rawBody).toBe(422);
    }
  });

  test('duplicate JSON keys: the last one wins, as in JSON.parse', async () => {
    const c = await workspaceClient();
    const res = await call('POST', c.q('/projects-labels'), {
      token: c.token,
      rawBody: '{"title":"First","title":"Second","color":"FFFFFF"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.title).toBe('Second');
  });

  test('an unknown route answers 404 problem+json; a known path with another method, 405 with Allow', async () => {
    const c = await workspaceClient();
    const res = await call('GET', '/nowhere', { token: c.token });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const patch = await call('PATCH', c.q('/projects'), { token: c.token });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, POST, OPTIONS');
  });
});

describe('browser clients', () => {
  test('every handler response, success or failure, carries Access-Control-Allow-Origin', async () => {
    const c = await workspaceClient();
    const origin = { origin: 'https://app.example.com' };
    const ok = await call('GET', c.q('/projects'), { token: c.token, headers: origin });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const notFound = await call('GET', c.q('/projects/nope'), { token: c.token, headers: origin });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('access-control-allow-origin')).toBe('*');
  });
});
