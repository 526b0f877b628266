import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { call, workspaceClient } from '#support/api';

/** Bodies in odd encodings, and one rule for every route. */
describe('encodings', () => {
  test('a gzip body with Content-Encoding: gzip is a 415 and creates nothing', async () => {
    const c = await workspaceClient('enc');
    const res = await call('POST', c.q('/projects-labels'), {
      token: c.token,
      rawBody: gzipSync(JSON.stringify({ title: 'Bug', color: 'FF0000' })) as unknown as string,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
  });

  test.each([['application/json; charset=utf-16'], ['application/json; charset=latin1'], ['application/json;charset="UTF-32"']])(
    'a declared %s is a 415',
    async (type) => {
      const c = await workspaceClient('enc');
      const res = await call('POST', c.q('/projects-labels'), {
        token: c.token,
        rawBody: JSON.stringify({ title: 'Bug', color: 'FF0000' }),
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(415);
    },
  );

  test('UTF-8 declared in any spelling is accepted', async () => {
    const c = await workspaceClient('enc');
    for (const [i, type] of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
    ].entries()) {
      const res = await call('POST', c.q('/projects-labels'), {
        token: c.token,
        rawBody: JSON.stringify({ title: `Bug ${i}`, color: 'FF0000' }),
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(201);
    }
  });

  test('invalid UTF-8 bytes are a 400, never replaced and stored', async () => {
    const c = await workspaceClient('enc');
    const body = Buffer.concat([Buffer.from('{"title":"B'), Buffer.from([0xff, 0xfe]), Buffer.from('ug","color":"FF0000"}')]);
    const res = await call('POST', c.q('/projects-labels'), {
      token: c.token,
      rawBody: body as unknown as string,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed_json');
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
  });
});

describe('a body that is not JSON', () => {
  test('is a 400 that says where it breaks, by line and column, and what JSON wants there; nothing is created', async () => {
    const c = await workspaceClient('json');
    const res = await call('POST', c.q('/projects-labels'), {
      token: c.token,
      rawBody: '{"title":"Bug",\n "color": FF0000}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'malformed_json',
      detail: 'The body is not valid JSON at line 2, column 11: found "F" where JSON wants a value.',
    });
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
  });
});

describe('one rule for every route', () => {
  test('a company_slug in the body that differs from the query is a 422 on label routes too', async () => {
    const c = await workspaceClient('rule');
    await c.createProject('Web');
    const label = await c.createLabel('Bug');
    const other = 'someone-else';
    const cases: [string, string, unknown][] = [
      ['POST', c.q('/projects-labels'), { title: 'X', color: 'FF0000', company_slug: other }],
      ['PUT', c.q(`/projects-labels/${label.slug}`), { color: '000000', company_slug: other }],
      ['POST', c.q(`/projects-labels/${label.slug}/attach`, { project_slug: 'web' }), { task_uuid: 't', company_slug: other }],
      ['DELETE', c.q(`/projects-labels/${label.slug}/detach`, { project_slug: 'web' }), { task_uuid: 't', company_slug: other }],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(method, path, { token: c.token, body });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'company_slug', message: expect.any(String) }]);
    }
    expect((await c.get('/projects-labels')).body.data).toEqual([expect.objectContaining({ color: 'FF5733' })]);
  });

  test('limit and per_page with different values are a 422; with the same value, fine', async () => {
    const c = await workspaceClient('rule');
    await c.createProject('Web');
    await c.createLabel('Bug');
    for (const [path, params] of [
      ['/projects', {}],
      ['/projects-labels/bug/tasks', { project_slug: 'web' }],
    ] as const) {
      const res = await c.get(path, { ...params, limit: '10', per_page: '20' });
      expect(res.status, path).toBe(422);
      expect(res.body.errors[0].field).toBe('per_page');
      expect((await c.get(path, { ...params, limit: '10', per_page: '10' })).status).toBe(200);
    }
  });

  test('the label list checks its paging parameters like every list', async () => {
    const c = await workspaceClient('rule');
    for (const params of [{ limit: 'abc' }, { per_page: '0' }, { limit: '101' }, { limit: '5', per_page: '6' }] as Record<
      string,
      string
    >[]) {
      const res = await c.get('/projects-labels', params);
      expect(res.status, JSON.stringify(params)).toBe(422);
    }
    expect((await c.get('/projects-labels', { limit: '5' })).status).toBe(200);
  });

  test('a deleted label is gone for every change at once, while its cascade may still be draining (404, nothing comes back)', async () => {
    const c = await workspaceClient('rule');
    const label = await c.createLabel('Doomed');
    const project = await c.createProject('Board');
    expect((await c.post(`/projects-labels/${label.slug}/attach`, { task_uuid: 't1' }, { project_slug: project.slug })).status).toBe(200);
    expect((await c.del(`/projects-labels/${label.slug}`)).status).toBe(200);
    for (const body of [{ color: '000000' }, { title: 'Renamed' }, { title: 'Renamed', color: '000000' }, {}]) {
      const res = await c.put(`/projects-labels/${label.slug}`, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
    }
    expect((await c.post(`/projects-labels/${label.slug}/attach`, { task_uuid: 't2' }, { project_slug: project.slug })).status).toBe(404);
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
    expect((await c.get('/projects-labels', { project_slug: project.slug, task_uuid: 't1' })).body.data).toEqual([]);
  });
});
