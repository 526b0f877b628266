import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type LocalApi, startLocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { startReceiver } from '../webhooks/receiver.ts';
import { type Built, builtClient } from './build.ts';

/**
 * The client package against a stack of this file's own, as `npm start` runs it: delivering webhooks to
 * loopback (to verify real deliveries), on a table the partition simulator throttles (real 503s with
 * Retry-After).
 */
let lib: Built;

describe('against `npm start` delivering to loopback, on a throttled table (the partition simulator)', () => {
  let stack: LocalApi;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stackToken: string;

  let c: any;

  beforeAll(async () => {
    lib = await builtClient();
    receiver = await startReceiver();
    stack = await startLocalApi({
      sharing: localStack().dynamodbPort,
      env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', DYNAMODB_PARTITION_LIMITS: 'rcu=40,wcu=1,burst=1' },
    });
    stackToken = /TOKEN=(\S+)/.exec(stack.output())![1]!;
    c = lib.createClient({ baseUrl: stack.url, token: stackToken, workspace: 'acme-corp' });
  }, 90_000);

  afterAll(async () => {
    expect(receiver.mismatches()).toEqual([]);
    await stack?.stop();
    await receiver?.close();
  });

  test('verifyWebhook takes its real deliveries (after a rotation too), typed by their type, and refuses them edited', async () => {
    const hook = (await c.createWebhook({ url: receiver.url('/client'), events: ['project.created'] })).data;
    await c.createProject({ name: 'Delivered To Client' });
    const first = await receiver.next('/client', (r) => r.json.type === 'Project Created');
    const event = await lib.verifyWebhook(hook.secret, first.body, first.headers);
    expect(event).toMatchObject({ type: 'Project Created', data: { data: { slug: 'delivered-to-client' } } });
    const rotated = (await c.rotateWebhookSecret({ id: hook.id })).data.secret;
    await c.createProject({ name: 'After Rotation' });
    const second = await receiver.next('/client', (r) => r.json.data.data?.slug === 'after-rotation');
    // Signed by the new secret and the old one in its grace: either verifies it.
    for (const secret of [hook.secret, rotated])
      expect((await lib.verifyWebhook(secret, second.body, second.headers)).type).toBe('Project Created');
    const edited = second.body.replace('after-rotation', 'after-rotatiom');
    await expect(lib.verifyWebhook(rotated, edited, second.headers)).rejects.toBeInstanceOf(lib.WebhookVerificationError);
  });

  test("a hot partition's 503s are ServiceUnavailableErrors without retries; with them, every create goes through once", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `Burst ${i}`);
    const statuses: number[] = [];
    const retrying = lib.createClient({
      baseUrl: stack.url,
      token: stackToken,
      workspace: 'acme-corp',
      maxRetries: 8,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    await Promise.all(names.map((name) => retrying.createProject({ name })));
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    const slugs: string[] = [];
    for await (const p of retrying.listProjects({ limit: 5 })) slugs.push(p.slug);
    // Each made once: a create made twice would show as a second, suffixed slug (burst-0-2).
    expect(slugs.filter((s) => s.startsWith('burst-')).sort()).toEqual(names.map((n) => n.toLowerCase().replace(' ', '-')).sort());
    const once = lib.createClient({ baseUrl: stack.url, token: stackToken, workspace: 'acme-corp', maxRetries: 0 });
    // Three times as many at once: each writes its copies to the same partitions, at 1 WCU a second there, more than the
    // service's own retries of a throttled call can wait out whatever the machine's speed (8 all got through once, on a
    // slow CI run whose requests arrived spread out).
    const again = Array.from({ length: 24 }, (_, i) => `Again ${i}`);
    const outcomes = await Promise.all(again.map((name) => once.createProject({ name }).catch((e: Error) => e)));
    const unavailable = outcomes.filter((o) => o instanceof lib.ServiceUnavailableError);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable[0]).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});
