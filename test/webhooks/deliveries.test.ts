import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { startReceiver } from './receiver.ts';

/**
 * Webhooks end to end, on a local stack of this file's own (`npm start` as users run it) that may
 * deliver to loopback (WEBHOOKS_ALLOW_PRIVATE_TARGETS) and retries on a short schedule: registered
 * through the API, delivered by the same code as the deployed deliverer, received by a real endpoint
 * and verified with the Standard Webhooks library.
 */
let api: LocalApi;
let token: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const ws = 'acme-corp';
const deadLetters = `/tmp/pls-webhook-dlq-${process.pid}.jsonl`;
const metrics = `/tmp/pls-webhook-metrics-${process.pid}.jsonl`;
/** The deliverer's metric `name` summed over its batches so far. */
const delivererSum = (name: string) =>
  (existsSync(metrics) ? readFileSync(metrics, 'utf8').trim().split('\n').filter(Boolean) : [])
    .map((l) => JSON.parse(l))
    .filter((l) => l.route === 'webhook-deliverer' && typeof l[name] === 'number')
    .reduce((sum, l) => sum + l[name], 0);

const req = (method: string, path: string, body?: unknown) =>
  call(method, `${path}${path.includes('?') ? '&' : '?'}company_slug=${ws}`, { base: api.url, token, body });

async function register(path: string, extra: Record<string, unknown> = {}) {
  const res = await req('POST', '/webhooks', { url: receiver.url(path), events: ['*'], ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; secret: string };
}

/** The webhook's deliveries once `done` holds for them (the deliveries log is what a user watches too). */
async function deliveriesWhen(id: string, done: (d: any[]) => boolean): Promise<any[]> {
  for (;;) {
    const res = await req('GET', `/webhooks/${id}/deliveries`);
    expect(res.status).toBe(200);
    if (done(res.body.data)) return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  receiver = await startReceiver();
  api = await startLocalApi({
    sharing: localStack().dynamodbPort,
    env: {
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      // Failing for 2.5 s turns an endpoint off: only the third attempt (3.28 s after the first at the
      // earliest, the retries' jitter taking up to 20% off each wait) reaches that; the second has 2.38 s
      // to spare on a loaded machine (a CI run beside other suites made it more than 1.4 s late once).
      WEBHOOKS_RETRY_SCHEDULE: '100ms,4s',
      WEBHOOKS_TIMEOUT: '1s',
      WEBHOOKS_DEACTIVATE_AFTER: '2500ms',
      WEBHOOK_DLQ_FILE: deadLetters,
      METRICS_FILE: metrics,
    },
  });
  token = /TOKEN=(\S+)/.exec(api.output())![1]!;
});

afterAll(async () => {
  // Every delivery this file received is what asyncapi.json's webhooks channel says (headers and body).
  expect(receiver.mismatches()).toEqual([]);
  await api?.stop();
  await receiver?.close();
});

describe('a delivery', () => {
  test('carries the event as the bus has it, signed so the Standard Webhooks library verifies it', async () => {
    const hook = await register('/signed');
    await req('POST', '/projects', { name: 'Signed Delivery' });
    const got = await receiver.next('/signed', (r) => r.json.type === 'Project Created');
    const verified = new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>) as any;
    expect(verified.data.data.slug).toBe('signed-delivery');
    expect(got.json.timestamp).toBe(got.json.data.occurred_at);
    expect(got.json.data).toMatchObject({ company_slug: ws, event_id: expect.any(String), actor: { username: 'local-dev' } });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^project-label-service-webhooks\//);
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    const wrong = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    expect(() => wrong.verify(got.body, got.headers as Record<string, string>)).toThrow();
  });

  test('goes only to webhooks that want its type and project', async () => {
    await req('POST', '/projects', { name: 'Wanted' });
    await req('POST', '/projects', { name: 'Unwanted' });
    const typed = await register('/typed', { events: ['label.created'] });
    const narrowed = await register('/narrowed', { events: ['Label Attached'], project_slug: 'wanted' });
    expect(typed.id).not.toBe(narrowed.id);
    await req('POST', '/projects-labels', { title: 'Typed', color: '00FF00' });
    await req('POST', '/projects-labels/typed/attach?project_slug=unwanted', { task_uuid: 't-1' });
    await req('POST', '/projects-labels/typed/attach?project_slug=wanted', { task_uuid: 't-2' });
    expect((await receiver.next('/typed')).json.type).toBe('Label Created');
    expect((await receiver.next('/narrowed')).json.data).toMatchObject({ project_slug: 'wanted', task_uuid: 't-2' });
    // The unwanted project's attach was published before the wanted one's: had it been sent, it would be here.
    await deliveriesWhen(narrowed.id, (d) => d.length === 1);
    expect(receiver.received('/narrowed').map((r) => r.json.data.project_slug)).toEqual(['wanted']);
    expect(receiver.received('/typed').map((r) => r.json.type)).toEqual(['Label Created']);
  });

  test('is retried with the same webhook-id until the endpoint answers 2xx, and the log says so', async () => {
    receiver.answer('/flaky', (n) => (n < 3 ? 500 : 204));
    const hook = await register('/flaky', { events: ['Project Created'] });
    await req('POST', '/projects', { name: 'Flaky Endpoint' });
    const [delivery] = await deliveriesWhen(hook.id, (d) => d[0]?.status === 'delivered');
    const ids = receiver.received('/flaky').map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([delivery.id, delivery.id, delivery.id]);
    expect(delivery).toMatchObject({
      attempts: 3,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
      event_type: 'Project Created',
    });
    expect(delivery.delivered_at).toEqual(expect.any(String));
  });

  test('a redirect (3xx) is a failure, retried: a delivery is delivered only by a 2xx', async () => {
    receiver.answer('/moved', (n) => (n === 1 ? 302 : n === 2 ? 307 : 200));
    const hook = await register('/moved', { events: ['Project Created'] });
    await req('POST', '/projects', { name: 'Moved Endpoint' });
    const [delivery] = await deliveriesWhen(hook.id, (d) => d[0]?.status === 'delivered');
    expect(delivery).toMatchObject({ attempts: 3, last_status_code: 200 });
    expect(receiver.received('/moved')).toHaveLength(3);
  });

  test("that fails every attempt is failed (the customer's endpoint: not dead-lettered), and its endpoint turned off after failing long enough", async () => {
    receiver.answer('/down', () => 503);
    const exhaustedBefore = delivererSum('WebhookDeliveriesFailed');
    const hook = await register('/down', { events: ['Project Created'] });
    await req('POST', '/projects', { name: 'Down Endpoint' });
    const [failed] = await deliveriesWhen(hook.id, (d) => d[0]?.status === 'failed');
    expect(failed).toMatchObject({ attempts: 3, last_status_code: 503, next_attempt_at: null, delivered_at: null });
    // The dead-letter queue (which pages) is for the deliverer's own failures: this one is counted on the dashboard.
    const lines = existsSync(deadLetters) ? readFileSync(deadLetters, 'utf8').trim().split('\n').filter(Boolean) : [];
    expect(lines.filter((l) => l.includes(failed.id))).toEqual([]);
    await expect.poll(() => delivererSum('WebhookDeliveriesFailed')).toBeGreaterThan(exhaustedBefore);
    const after = (await req('GET', `/webhooks/${hook.id}`)).body.data;
    expect(after).toMatchObject({ active: false, failing_since: expect.any(String), deactivated_reason: expect.stringMatching(/failed/) });
  });

  test('to a webhook turned off meanwhile ends unsent: not even a retry already scheduled goes out', async () => {
    let id = '';
    receiver.answer('/off', async (n) => {
      // Turned off while its first attempt is under way: the retry is already on its way to be scheduled.
      if (n === 1) expect((await req('PUT', `/webhooks/${id}`, { active: false })).status).toBe(200);
      return 500;
    });
    id = (await register('/off', { events: ['Project Created'] })).id;
    await req('POST', '/projects', { name: 'Turned Off' });
    const [ended] = await deliveriesWhen(id, (d) => d[0]?.status === 'failed');
    expect(ended).toMatchObject({ attempts: 1, last_error: 'Not sent: the webhook is turned off.', next_attempt_at: null });
    expect(receiver.received('/off')).toHaveLength(1);
  });

  test('of a slow endpoint holds up no other', async () => {
    receiver.answer('/slow', () => 'hang');
    await register('/slow', { events: ['Project Created'] });
    await register('/fast', { events: ['Project Created'] });
    await req('POST', '/projects', { name: 'Slow And Fast' });
    const slow = await receiver.next('/slow', (r) => r.json.data.data.slug === 'slow-and-fast');
    await receiver.next('/fast', (r) => r.json.data.data.slug === 'slow-and-fast');
    expect(slow).toBeDefined();
  });
});

describe("a webhook's health, told to the workspace's other webhooks", () => {
  const about = (type: string, id: string) => (r: { json: any }) => r.json.type === type && r.json.data.data.id === id;

  test('Webhook Failing, then Webhook Disabled; Webhook Recovered when a failing endpoint answers 2xx; never to the webhook itself', async () => {
    const observer = await register('/health-observer', { events: ['webhook.failing', 'Webhook Disabled', 'webhook.recovered'] });
    await register('/health-all');
    receiver.answer('/health-down', () => 503);
    // It names the operational events it wants: the one about itself is still never sent to it.
    const down = await register('/health-down', { events: ['*', 'webhook.failing'] });
    receiver.answer('/health-back', (n) => (n === 1 ? 500 : 204));
    const back = await register('/health-back', { events: ['Project Created'] });
    await req('POST', '/projects', { name: 'Health Events' });

    const failing = await receiver.next('/health-observer', about('Webhook Failing', down.id));
    const verified = new Webhook(observer.secret).verify(failing.body, failing.headers as Record<string, string>) as any;
    expect(verified.data).toMatchObject({
      company_slug: ws,
      actor: null,
      data: { id: down.id, host: new URL(receiver.url('/')).host, active: true, failing_since: expect.any(String) },
    });
    // Never its secret, nor its URL's path (where a credential often is).
    expect(verified.data.data).not.toHaveProperty('secret');
    expect(verified.data.data).not.toHaveProperty('url');
    expect(failing.json.timestamp).toBe(failing.json.data.data.failing_since);
    const backFailing = await receiver.next('/health-observer', about('Webhook Failing', back.id));
    const recovered = await receiver.next('/health-observer', about('Webhook Recovered', back.id));
    expect(recovered.json.data).toMatchObject({
      actor: null,
      failing_since: backFailing.json.data.data.failing_since,
      data: { id: back.id, active: true, failing_since: null },
    });
    expect(Date.parse(recovered.json.timestamp)).toBeGreaterThan(Date.parse(recovered.json.data.failing_since));
    const disabled = await receiver.next('/health-observer', about('Webhook Disabled', down.id));
    expect(disabled.json.data).toMatchObject({
      actor: { username: 'system' },
      data: { id: down.id, active: false, deactivated_reason: expect.stringMatching(/failed/) },
    });
    // `*` is every change, not these: a healthy `*` webhook got the project, none of them. One that names
    // Webhook Failing got the other endpoint's (sent at once: long before it was turned off), never its own.
    await receiver.next('/health-all', (r) => r.json.data.data?.slug === 'health-events');
    expect(receiver.received('/health-all').filter((r) => r.json.type.startsWith('Webhook '))).toEqual([]);
    await receiver.next('/health-down', about('Webhook Failing', back.id));
    expect(receiver.received('/health-down').filter((r) => r.json.data?.data?.id === down.id)).toEqual([]);
  });

  test("are no one's change: the history keeps none, and its type filter does not name them", async () => {
    const entries = await req('GET', '/activities?from_context=company&per_page=100');
    expect(entries.status).toBe(200);
    expect(entries.body.data.filter((e: { type: string }) => e.type.startsWith('Webhook '))).toEqual([]);
    const refused = await req('GET', '/activities?from_context=company&type=webhook.failing');
    expect(refused.status).toBe(422);
  });
});

describe('the webhook routes', () => {
  test('ping answers whether the endpoint answered 2xx, and records the delivery', async () => {
    const ok = await register('/ping-ok');
    const res = await req('POST', `/webhooks/${ok.id}/ping`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status_code: 200, error: null, delivery: { status: 'delivered', attempts: 1 } });
    expect((await receiver.next('/ping-ok')).json.type).toBe('Webhook Ping');
    receiver.answer('/ping-bad', () => 404);
    const bad = await register('/ping-bad');
    const refused = await req('POST', `/webhooks/${bad.id}/ping`);
    expect(refused.body.data).toMatchObject({ success: false, status_code: 404, delivery: { status: 'failed' } });
  });

  test('redeliver sends a delivery again, with the same webhook-id', async () => {
    receiver.answer('/again', (n) => (n === 1 ? 500 : 200));
    const hook = await register('/again');
    const ping = (await req('POST', `/webhooks/${hook.id}/ping`)).body.data;
    expect(ping.success).toBe(false);
    const res = await req('POST', `/webhooks/${hook.id}/deliveries/${ping.delivery.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: ping.delivery.id, status: 'delivered', attempts: 2, last_status_code: 200 });
    const both = receiver.received('/again').map((r) => r.headers['webhook-id']);
    expect(both).toEqual([ping.delivery.id, ping.delivery.id]);
  });

  test('recover sends again, now, what an outage left failing: a delivery waiting for its retry goes out at once', async () => {
    receiver.answer('/outage', (n) => (n <= 2 ? 503 : 200));
    const hook = await register('/outage', { events: ['Project Created'] });
    const since = new Date(Date.now() - 1000).toISOString();
    await req('POST', '/projects', { name: 'Outage Endpoint' });
    // Two attempts failed; the third waits 4 s on the schedule.
    const [waiting] = await deliveriesWhen(hook.id, (d) => d[0]?.attempts === 2 && d[0]?.status === 'pending');
    const recovered = await req('POST', `/webhooks/${hook.id}/recover`, { since });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body.data).toEqual({ queued: 1, more: false });
    const [delivered] = await deliveriesWhen(hook.id, (d) => d[0]?.status === 'delivered');
    expect(delivered).toMatchObject({ id: waiting.id, attempts: 3, last_status_code: 200 });
    expect(Date.parse(delivered.delivered_at)).toBeLessThan(Date.parse(waiting.next_attempt_at));
    expect(receiver.received('/outage')).toHaveLength(3);
    // Nothing is left to recover; a bad time is a 422; a webhook of no one, a 404.
    expect((await req('POST', `/webhooks/${hook.id}/recover`, { since })).body.data).toEqual({ queued: 0, more: false });
    const bad = await req('POST', `/webhooks/${hook.id}/recover`, { since: 'last week' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('since');
    expect((await req('POST', '/webhooks/wh_nobody00000000000000000/recover', { since })).status).toBe(404);
  });

  test("a workspace's pings and redeliveries under way at once are bounded: one more is told to retry, and sends nothing", async () => {
    receiver.answer('/slots-held', (n) => (n <= 2 ? 'hang' : 200));
    const hook = await register('/slots-held');
    // Two pings hold the workspace's two slots while the endpoint keeps them waiting (until the 1 s timeout).
    const holding = [req('POST', `/webhooks/${hook.id}/ping`), req('POST', `/webhooks/${hook.id}/ping`)];
    await receiver.next('/slots-held', () => receiver.received('/slots-held').length === 2);
    const key = `ping-${Date.now()}`;
    const refused = await call('POST', `/webhooks/${hook.id}/ping?company_slug=${ws}`, {
      base: api.url,
      token,
      headers: { 'Idempotency-Key': key },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body.detail).toMatch(/already under way/);
    const held = await Promise.all(holding);
    expect(held.map((r) => [r.status, r.body.data.success])).toEqual([
      [200, false],
      [200, false],
    ]);
    // The refused one was neither sent nor recorded; once the others ended, the next one goes.
    expect(receiver.received('/slots-held')).toHaveLength(2);
    expect((await req('GET', `/webhooks/${hook.id}/deliveries`)).body.data).toHaveLength(2);
    // Retried with the same key as Retry-After says, it runs: an answer that says "later" is not kept.
    const next = await call('POST', `/webhooks/${hook.id}/ping?company_slug=${ws}`, {
      base: api.url,
      token,
      headers: { 'Idempotency-Key': key },
    });
    expect(next.headers.get('idempotent-replayed')).toBeNull();
    expect(next.body.data).toMatchObject({ success: true, status_code: 200 });
  });

  test('after a rotation, deliveries are signed by the new secret and, for a day, by the old one too', async () => {
    const hook = await register('/rotated');
    const rotated = await req('POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toEqual({ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    await req('POST', `/webhooks/${hook.id}/ping`);
    const got = await receiver.next('/rotated');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [hook.secret, rotated.body.data.secret])
      expect(() => new Webhook(secret).verify(got.body, got.headers as any)).not.toThrow();
    expect(JSON.stringify((await req('GET', `/webhooks/${hook.id}`)).body)).not.toContain('whsec_');
  });

  test('after two rotations in a day, three secrets sign: a receiver holding any one of them verifies the delivery', async () => {
    const hook = await register('/rotated-twice');
    const second = (await req('POST', `/webhooks/${hook.id}/rotate-secret`)).body.data.secret as string;
    const third = (await req('POST', `/webhooks/${hook.id}/rotate-secret`)).body.data.secret as string;
    await req('POST', `/webhooks/${hook.id}/ping`);
    const got = await receiver.next('/rotated-twice');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(3);
    for (const secret of [hook.secret, second, third]) expect(() => new Webhook(secret).verify(got.body, got.headers as any)).not.toThrow();
  });

  test('expire_previous_now: the replaced secrets stop signing at once (a secret that leaked)', async () => {
    const hook = await register('/leaked');
    await req('POST', `/webhooks/${hook.id}/rotate-secret`);
    const fresh = await req('POST', `/webhooks/${hook.id}/rotate-secret`, { expire_previous_now: true });
    expect(fresh.status, fresh.text).toBe(200);
    await req('POST', `/webhooks/${hook.id}/ping`);
    const got = await receiver.next('/leaked');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh.body.data.secret).verify(got.body, got.headers as any)).not.toThrow();
    expect(() => new Webhook(hook.secret).verify(got.body, got.headers as any)).toThrow();
  });

  test("a secret of the caller's own is taken; one that is not usable, or one it signed with, is a 422 that changes nothing", async () => {
    const hook = await register('/own-secret');
    const own = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const taken = await req('POST', `/webhooks/${hook.id}/rotate-secret`, { secret: own });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.data).toEqual({ secret: own });
    for (const bad of [
      'whsec_short',
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      Buffer.alloc(32).toString('base64'),
      own,
      hook.secret,
    ]) {
      const refused = await req('POST', `/webhooks/${hook.id}/rotate-secret`, { secret: bad });
      expect(refused.status, bad).toBe(422);
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['secret']);
    }
    await req('POST', `/webhooks/${hook.id}/ping`);
    const got = await receiver.next('/own-secret');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(own).verify(got.body, got.headers as any)).not.toThrow();
  });

  test('a deleted webhook receives nothing more', async () => {
    const doomed = await register('/deleted', { events: ['Project Created'] });
    await register('/witness', { events: ['Project Created'] });
    const res = await req('DELETE', `/webhooks/${doomed.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: doomed.id, deleted: true });
    await req('POST', '/projects', { name: 'After The Delete' });
    await receiver.next('/witness', (r) => r.json.data.data.slug === 'after-the-delete');
    expect(receiver.received('/deleted')).toEqual([]);
    expect((await req('GET', `/webhooks/${doomed.id}`)).status).toBe(404);
  });
});
