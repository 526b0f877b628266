import { beforeAll, describe, expect, test } from 'vitest';
import { SCOPES } from '#domain/scopes';
import { call, tokenFor, workspaceClient, type WorkspaceClient } from '#support/api';

/**
 * The webhook routes on the suite's shared local stack, which applies the deployed request-forgery
 * rules (no WEBHOOKS_ALLOW_PRIVATE_TARGETS): what they accept, what they refuse and why, and that one
 * workspace can neither see nor change another's webhooks.
 */
let a: WorkspaceClient;
let b: WorkspaceClient;
const URL_OK = 'https://hooks.example.com/receiver';

const create = (c: WorkspaceClient, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', c.q('/webhooks'), { token: c.token, body: { url: URL_OK, events: ['*'], ...body }, headers });

beforeAll(async () => {
  a = await workspaceClient('wh-a');
  b = await workspaceClient('wh-b');
  await a.createProject('Only This');
});

describe('registering', () => {
  test('answers the webhook with its secret once, and never again', async () => {
    const res = await create(a, { events: ['project.created', 'Label Attached', 'project.created'], project_slug: 'only-this' });
    expect(res.status).toBe(201);
    const hook = res.body.data;
    expect(hook).toMatchObject({ url: URL_OK, events: ['Project Created', 'Label Attached'], project_slug: 'only-this', active: true });
    expect(Buffer.from(hook.secret.replace(/^whsec_/, ''), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(res.headers.get('location')).toContain(`/webhooks/${hook.id}?company_slug=${a.ws}`);
    const read = await a.get(`/webhooks/${hook.id}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('whsec_');
    expect((await a.get('/webhooks')).text).not.toContain('whsec_');
  });

  test.each([
    ['http://hooks.example.com/x', /http is not allowed; use https/],
    ['https://127.0.0.1/x', /127\.0\.0\.1 is a loopback address/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local address/],
    ['https://10.1.2.3/x', /10\.1\.2\.3 is a private address \(10\.0\.0\.0\/8\)/],
    ['https://[::ffff:127.0.0.1]/x', /loopback/],
    ['https://0x7f.1/x', /127\.0\.0\.1 is a loopback address/],
    ['https://user:secret@hooks.example.com/x', /^a user name or password \(credentials\) before @hooks\.example\.com is not allowed/],
    ['https://localhost:8443/x', /localhost/],
    ['notaurl', /^"notaurl" is not an absolute URL/],
    ['https://hooks.example.com/x y', /^"https:\/\/hooks\.example\.com\/x y" contains spaces/],
  ])('refuses %s with a 422 naming the rule, and saves nothing', async (url, rule) => {
    const before = (await b.get('/webhooks')).body.data.length;
    const res = await create(b, { url });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('url');
    expect(res.body.errors[0].message).toMatch(rule);
    expect((await b.get('/webhooks')).body.data).toHaveLength(before);
  });

  test('refuses an event type it does not publish, naming it and the known ones', async () => {
    const res = await create(b, { events: ['Project Created', 'Task Created'] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'events[1]', message: expect.stringContaining('"Task Created" is not an event type') }]);
    expect(res.body.errors[0].message).toContain('"Label Detached"');
  });

  test('refuses a project the workspace does not have', async () => {
    const res = await create(b, { project_slug: 'only-this' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ field: 'project_slug', message: expect.stringContaining('"only-this"') });
  });

  test('replays an Idempotency-Key instead of registering twice', async () => {
    const key = { 'Idempotency-Key': `wh-${Date.now()}` };
    const first = await create(b, { description: 'once' }, key);
    const again = await create(b, { description: 'once' }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });
});

describe('changing', () => {
  test('a PUT changes only what it names; a stale If-Match is a 412 and changes nothing', async () => {
    const hook = (await create(b, { description: 'before' })).body.data;
    const read = await b.get(`/webhooks/${hook.id}`);
    const etag = read.headers.get('etag')!;
    const changed = await b.put(`/webhooks/${hook.id}`, { description: 'after' });
    expect(changed.body.data).toMatchObject({ description: 'after', url: URL_OK, events: ['*'] });
    const stale = await call('PUT', b.q(`/webhooks/${hook.id}`), {
      token: b.token,
      body: { active: false },
      headers: { 'If-Match': etag },
    });
    expect(stale.status).toBe(412);
    expect((await b.get(`/webhooks/${hook.id}`)).body.data.active).toBe(true);
  });

  test('pages through the webhooks with a cursor', async () => {
    const c = await workspaceClient('wh-page');
    for (const d of ['one', 'two', 'three']) expect((await create(c, { description: d })).status).toBe(201);
    const first = await c.get('/webhooks', { limit: '2' });
    const second = await c.get('/webhooks', { limit: '2', cursor: first.body.meta.next_cursor });
    expect(first.body.data).toHaveLength(2);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.next_cursor).toBeNull();
  });
});

describe('tenant isolation', () => {
  test("another workspace's token can neither see nor change nor trigger a webhook", async () => {
    const hook = (await create(a, {})).body.data;
    for (const [method, path] of [
      ['GET', `/webhooks/${hook.id}`],
      ['PUT', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['POST', `/webhooks/${hook.id}/ping`],
      ['POST', `/webhooks/${hook.id}/rotate-secret`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const own = await call(method, b.q(path), { token: b.token, body: method === 'PUT' ? { active: false } : undefined });
      expect(own.status, `${method} ${path} in b`).toBe(404);
      expect(own.body.error_code).toBe('WEBHOOK_NOT_FOUND');
      const theirs = await call(method, `${path}?company_slug=${a.ws}`, { token: b.token });
      expect(theirs.status, `${method} ${path} naming a`).toBe(403);
    }
    expect((await b.get('/webhooks')).text).not.toContain(hook.id);
    expect((await a.get(`/webhooks/${hook.id}`)).body.data.active).toBe(true);
  });

  test("no workspace's webhook is sent another workspace's events", async () => {
    const [x, y] = [await workspaceClient('wh-x'), await workspaceClient('wh-y')];
    const hookX = (await create(x, { events: ['Label Created'] })).body.data;
    const hookY = (await create(y, { events: ['Label Created'] })).body.data;
    await y.createLabel('Only In Y');
    // Every webhook that wants an event gets its delivery in one step: once y's is there, x's would be too.
    for (;;) {
      const mine = (await y.get(`/webhooks/${hookY.id}/deliveries`)).body.data;
      if (mine.length === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await x.get(`/webhooks/${hookX.id}/deliveries`)).body.data).toEqual([]);
  });

  test('a token without the webhook scopes gets 403', async () => {
    const reader = await tokenFor(a.ws, { scopes: SCOPES.filter((s) => !s.startsWith('webhooks:')) });
    expect((await call('GET', a.q('/webhooks'), { token: reader })).status).toBe(403);
    expect((await call('POST', a.q('/webhooks'), { token: reader, body: { url: URL_OK, events: ['*'] } })).status).toBe(403);
  });
});
