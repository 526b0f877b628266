import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';
import { call, tokenFor, workspaceClient } from '#support/api';
import { seedFixture } from '#support/fixtures';
import { sampleRequest, withQuery, type Fixture } from '#support/requests';
import { streamDrained } from '#support/settle';

/**
 * What the documentation promises, route by route, kept: every operation the OpenAPI document gives
 * an If-Match header answers 412 to a stale tag and changes nothing; search takes only the categories
 * it knows, and refuses `constructor` and `__proto__` as it refuses any other.
 */
const doc = JSON.parse(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8')) as Record<string, any>;
const conditional = routes.filter((r) =>
  (doc.paths[r.path][r.method.toLowerCase()].parameters ?? []).some(
    (p: { in: string; name: string }) => p.in === 'header' && p.name === 'If-Match',
  ),
);

/** Everything a write could touch in a fixture, as tags and lists (to compare before and after). */
async function fixtureState(f: Fixture, token: string): Promise<unknown[]> {
  const get = async (path: string, query: Record<string, string> = {}) => {
    const res = await call('GET', withQuery(path, { company_slug: f.ws, ...query }), { token });
    return [res.status, res.headers.get('etag') ?? res.body];
  };
  return Promise.all([
    get(`/projects/${f.project}`),
    get(`/projects-labels/${f.label}`),
    get('/projects-labels'),
    get('/projects-labels', { project_slug: f.project, task_uuid: f.task }),
    get(`/projects-labels/${f.label}/tasks`, { project_slug: f.project }),
    ...(f.webhook ? [get(`/webhooks/${f.webhook}`)] : []),
  ]);
}

test('the document gives If-Match to every PUT and DELETE', () => {
  expect(conditional.map((r) => r.name).sort()).toEqual(
    routes
      .filter((r) => r.method === 'PUT' || r.method === 'DELETE')
      .map((r) => r.name)
      .sort(),
  );
});

describe.each(conditional.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_name, route) => {
  let f: Fixture;
  let token: string;
  beforeAll(async () => {
    f = await seedFixture('ifm');
    token = await tokenFor(f.ws);
    if (route.path.startsWith('/webhooks')) {
      // An event type nothing here publishes: no delivery fails meanwhile, so the webhook's own state stays put.
      const body = { company_slug: f.ws, url: 'https://hooks.example.com/ifm', events: ['Project Deleted'] };
      f.webhook = (await call('POST', '/webhooks', { token, body })).body.data.id;
    }
    await streamDrained();
  });

  test('a stale If-Match: 412 problem, nothing changed', async () => {
    const before = await fixtureState(f, token);
    const sample = sampleRequest(route, f);
    const res = await call(route.method, withQuery(sample.path, { company_slug: f.ws, ...sample.query }), {
      token,
      ...(sample.body === undefined ? {} : { body: sample.body }),
      headers: { 'if-match': '"not-the-current-tag"' },
    });
    expect(res.status, res.text).toBe(412);
    expect(res.body.error_code).toBe('PRECONDITION_FAILED');
    await streamDrained();
    expect(await fixtureState(f, token)).toEqual(before);
  });

  test("with the resource's current tag (or *), it goes through", async () => {
    const sample = sampleRequest(route, f);
    const resource = f.webhook
      ? `/webhooks/${f.webhook}`
      : route.path.startsWith('/projects-labels')
        ? `/projects-labels/${f.label}`
        : `/projects/${f.project}`;
    const current = (await call('GET', withQuery(resource, { company_slug: f.ws }), { token })).headers.get('etag')!;
    const res = await call(route.method, withQuery(sample.path, { company_slug: f.ws, ...sample.query }), {
      token,
      ...(sample.body === undefined ? {} : { body: sample.body }),
      headers: { 'if-match': `"other", ${current}` },
    });
    expect(res.status, res.text).toBe(sample.expectedStatus);
  });
});

describe('detach with If-Match', () => {
  test('names the label: a rename since the tag was read makes it a 412, the link stays', async () => {
    const c = await workspaceClient('ifm');
    await c.createProject('Web');
    await c.createLabel('Bug');
    expect((await c.post('/projects-labels/bug/attach', { task_uuid: 't1' }, { project_slug: 'web' })).status).toBe(200);
    const tag = (await c.get('/projects-labels/bug')).headers.get('etag')!;
    expect((await c.put('/projects-labels/bug', { title: 'Defect' })).status).toBe(200);
    const detach = (ifMatch: string) =>
      call('DELETE', c.q('/projects-labels/bug/detach', { project_slug: 'web' }), {
        token: c.token,
        body: { task_uuid: 't1' },
        headers: { 'if-match': ifMatch },
      });
    expect((await detach(tag)).status).toBe(412);
    expect(
      (await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1' })).body.data.map((l: { slug: string }) => l.slug),
    ).toEqual(['bug']);
    const fresh = (await c.get('/projects-labels/bug')).headers.get('etag')!;
    expect((await detach(fresh)).status).toBe(200);
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1' })).body.data).toEqual([]);
  });
});

describe('search categories', () => {
  test.each(['toString', 'valueOf', 'hasOwnProperty'])(
    'categories=%s: refused like any name that is not lower case (422), nothing looked up',
    async (categories) => {
      const c = await workspaceClient('search');
      const res = await c.get('/search', { q: 'web', categories });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['categories[0]']);
    },
  );

  test.each([
    ['constructor', ['categories[0]']],
    ['__proto__', ['categories[0]']],
    ['constructor,__proto__,projects', ['categories[0]', 'categories[1]']],
    ['project,__proto__', ['categories[1]']],
  ])('categories=%s: refused (422) naming each unknown one, nothing looked up', async (categories, fields) => {
    const c = await workspaceClient('search');
    await c.createProject('Website');
    const res = await c.get('/search', { q: 'web', categories });
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    expect(res.text).not.toContain('Website');
  });

  test('categories=project,tasks,sprint: known names, plural or singular, each an own member of the answer', async () => {
    const c = await workspaceClient('search');
    await c.createProject('Website');
    const res = await c.get('/search', { q: 'web', categories: 'project,tasks,sprint' });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text).data).toEqual({
      projects: { items: [expect.objectContaining({ title: 'Website' })], total: 1 },
      tasks: { items: [], total: 0 },
      sprints: { items: [], total: 0 },
    });
  });
});
