import { beforeAll, describe, expect, test } from 'vitest';
import { dottedName, OUTBOUND_TYPES } from '#domain/eventNames';
import { SCOPES } from '#domain/scopes';
import { call, tokenFor, workspaceClient, type WorkspaceClient } from '#support/api';

/**
 * What the deliveries log tells, on the suite's shared local stack (deployed rules: a documentation
 * host is never reached, so every attempt fails with an error): one delivery with the log of its
 * attempts, the log filtered by status, and the event types a webhook may subscribe to.
 */
let a: WorkspaceClient;
let b: WorkspaceClient;
let hook: string;
let delivery: string;

beforeAll(async () => {
  a = await workspaceClient('wh-log-a');
  b = await workspaceClient('wh-log-b');
  hook = (await a.post('/webhooks', { url: 'https://hooks.example.com/log', events: ['*'] })).body.data.id;
  const ping = await a.post(`/webhooks/${hook}/ping`);
  expect(ping.body.data.success).toBe(false);
  delivery = ping.body.data.delivery.id;
  for (let i = 0; i < 2; i++) expect((await a.post(`/webhooks/${hook}/deliveries/${delivery}/redeliver`)).status).toBe(200);
});

describe('one delivery', () => {
  test('answers each attempt, oldest first: its time, its error (no answer), its duration and what made it', async () => {
    const res = await a.get(`/webhooks/${hook}/deliveries/${delivery}`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ id: delivery, webhook_id: hook, event_type: 'Webhook Ping', status: 'failed', attempts: 3 });
    expect(data.attempt_log).toHaveLength(3);
    for (const attempt of data.attempt_log) {
      expect(attempt).toEqual({
        at: expect.any(String),
        status_code: null,
        error: expect.any(String),
        duration_ms: expect.any(Number),
        trigger: 'manual',
      });
      expect(attempt.error.length).toBeGreaterThan(0);
    }
    const times = data.attempt_log.map((x: { at: string }) => Date.parse(x.at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(data.last_attempt_at).toBe(data.attempt_log[2].at);
    // A resource with its entity tag.
    const etag = res.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect(
      (await call('GET', a.q(`/webhooks/${hook}/deliveries/${delivery}`), { token: a.token, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
  });

  test('an unknown delivery, or one of another workspace, is a 404; another workspace named is a 403', async () => {
    const unknown = await a.get(`/webhooks/${hook}/deliveries/msg_000000000000ffffffffffffffffffff`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error_code).toBe('DELIVERY_NOT_FOUND');
    const theirs = await b.get(`/webhooks/${hook}/deliveries/${delivery}`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain(delivery.slice(4));
    expect((await call('GET', `/webhooks/${hook}/deliveries/${delivery}?company_slug=${a.ws}`, { token: b.token })).status).toBe(403);
  });
});

describe('the log by status', () => {
  test('lists the deliveries of one status alone', async () => {
    const failed = await a.get(`/webhooks/${hook}/deliveries`, { status: 'failed' });
    expect(failed.status).toBe(200);
    expect(failed.body.data.map((d: { id: string }) => d.id)).toEqual([delivery]);
    for (const status of ['delivered', 'pending']) expect((await a.get(`/webhooks/${hook}/deliveries`, { status })).body.data).toEqual([]);
  });

  test('pages one status by cursor, each delivery once', async () => {
    for (let i = 0; i < 3; i++) await a.post(`/webhooks/${hook}/ping`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string; status: string }[]; meta: { next_cursor: string | null } } } = await a.get(
        `/webhooks/${hook}/deliveries`,
        { status: 'failed', limit: '2', ...(cursor ? { cursor } : {}) },
      );
      for (const d of page.body.data) expect(d.status).toBe('failed');
      seen.push(...page.body.data.map((d) => d.id));
      cursor = page.body.meta.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    // A cursor of the log by status is not one of the whole log: it is refused, not misread.
    const first = await a.get(`/webhooks/${hook}/deliveries`, { status: 'failed', limit: '1' });
    const other = await a.get(`/webhooks/${hook}/deliveries`, { limit: '1', cursor: first.body.meta.next_cursor });
    expect(other.status).toBe(422);
  });

  test('refuses a status it does not know, and page numbers with a status, changing nothing', async () => {
    const bogus = await a.get(`/webhooks/${hook}/deliveries`, { status: 'lost' });
    expect(bogus.status).toBe(422);
    expect(bogus.body.errors[0].field).toBe('status');
    const paged = await a.get(`/webhooks/${hook}/deliveries`, { status: 'failed', page: '1' });
    expect(paged.status).toBe(422);
    expect(paged.body.errors).toEqual([{ field: 'page', message: expect.stringMatching(/cannot be combined with status/) }]);
  });
});

describe('event types', () => {
  test('lists every type a webhook may subscribe to, by both its names, with what it tells', async () => {
    const res = await a.get('/webhook-event-types');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual([...OUTBOUND_TYPES]);
    for (const t of res.body.data) {
      expect(t.dotted_name).toBe(dottedName(t.name));
      expect(t.description).toMatch(/^[A-Z].+\.$/);
    }
    // What it lists, a webhook takes.
    const names = res.body.data.map((t: { dotted_name: string }) => t.dotted_name);
    expect((await a.post('/webhooks', { url: 'https://hooks.example.com/all-types', events: names })).status).toBe(201);
  });

  test('needs webhooks:read', async () => {
    const reader = await tokenFor(a.ws, { scopes: SCOPES.filter((s) => !s.startsWith('webhooks:')) });
    expect((await call('GET', a.q('/webhook-event-types'), { token: reader })).status).toBe(403);
  });
});
