import { deliverySettings } from '#webhooks/settings';
import { describe, expect, test } from 'vitest';
import type { SQSRecord } from 'aws-lambda';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_SOURCE } from '#domain/eventNames';
import { claimDelivery, readDelivery, recordAttempt } from '#webhooks/store/webhookDeliveries';
import { readWebhook } from '#webhooks/store/webhooks';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { HEALTH_QUIET_MS, webhookHealth } from '#webhooks/store/webhookHealth';
import { writeWebhook } from '#local/sampleWebhooks';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { attemptScheduled } from '#webhooks/deliveries';
import { type AttemptMessage, useLocalRetryLane, type WebhookQueue } from '#webhooks/queue';
import { recoverDeliveries } from '#webhooks/recovery';
import { freeRecoveryLease, takeRecoveryLease } from '#webhooks/store/recoveryLease';
import { redeliver } from '#webhooks/onRequest';
import { updateWebhook } from '#webhooks/registration';
import { getDelivery, listDeliveries } from '#webhooks/subscriptions';
import { Busy, Conflict, NotFound } from '#domain/errors';
import { uniqueWorkspace } from '#support/api';
import { deliveryItems } from '#support/deliveries';
import { shardOfDelivery } from '#webhooks/store/deliverySpread';
import { useInProcessReceiver } from './receiver.ts';

/** The recoveries here are the engine's: the caller's scopes are the routes' concern (test/hostile/scope-matrix.test.ts). */
const anyCarried = () => undefined;

/**
 * The deliverer's own rules, in process against the suite's DynamoDB Local, with the queue in the
 * test's hands: what a duplicate message, a superseded retry, a failing endpoint and a stale run of
 * failures do. Deliveries go to an endpoint on loopback (this process may deliver there).
 */
const receiver = useInProcessReceiver();

/** A queue that keeps what the deliverer sends it. */
function keptQueue() {
  const retries: { message: AttemptMessage; delayMs: number }[] = [];
  const deadLetters: string[] = [];
  const queue: WebhookQueue = {
    later: async (message, delayMs) => void retries.push({ message: message as AttemptMessage, delayMs }),
    deadLetter: async (_body, reason) => void deadLetters.push(reason),
  };
  return { queue, retries, deadLetters };
}

async function webhookTo(path: string, extra: { failing_since?: string; last_failure_at?: string } = {}) {
  const ws = uniqueWorkspace('engine');
  const id = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
  await writeWebhook({ id, workspace: ws, url: receiver.url(path), ...extra });
  return { ws, id };
}

const readHealth = async (ws: string, id: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhookHealth(ws, id), ConsistentRead: true }))).Item;

const record = (body: unknown, n = 1) => ({ messageId: `m-${n}-${Math.random()}`, body: JSON.stringify(body) }) as SQSRecord;
const eventOf = (ws: string, eventId: string) => ({
  version: '0',
  id: eventId,
  'detail-type': 'Label Created',
  source: EVENT_SOURCE,
  time: new Date().toISOString(),
  detail: {
    event_id: eventId,
    company_slug: ws,
    occurred_at: new Date().toISOString(),
    actor: null,
    data: { id: 1, slug: 'l', title: 'L', color: 'FF0000' },
  },
});

/** The Queries of `run` that read a workspace's webhooks (sort keys under WEBHOOK#), by workspace. */
async function webhookReadsOf(run: () => Promise<unknown>): Promise<string[]> {
  const reads: string[] = [];
  const name = `countWebhookReads${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
      if (context.commandName === 'QueryCommand' && values?.[':prefix'] === keys.webhookSkPrefix) reads.push(String(values[':pk']));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    db.middlewareStack.remove(name);
  }
  return reads;
}

describe('the deliverer', () => {
  test("a batch's events of one workspace share one read of its webhooks, and each is delivered", async () => {
    const [a, b] = [await webhookTo('/batch-a'), await webhookTo('/batch-b')];
    const { queue } = keptQueue();
    const events = [...[1, 2, 3, 4, 5, 6].map((n) => eventOf(a.ws, `evt-a${n}`)), ...[1, 2, 3, 4].map((n) => eventOf(b.ws, `evt-b${n}`))];
    let out: Awaited<ReturnType<typeof consumeWebhookMessages>> | undefined;
    const reads = await webhookReadsOf(async () => {
      out = await consumeWebhookMessages(
        events.map((e, i) => record(e, i)),
        queue,
      );
    });
    expect(reads.sort()).toEqual([keys.webhookCollection(a.ws), keys.webhookCollection(b.ws)].sort());
    expect(out!.tally).toMatchObject({ delivered: 10, errors: 0 });
    expect(receiver.received('/batch-a')).toHaveLength(6);
    expect(receiver.received('/batch-b')).toHaveLength(4);
    // Batches apart read apart: a webhook of workspace a made between them gets the second batch's event.
    const id = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
    await writeWebhook({ id, workspace: a.ws, url: receiver.url('/batch-a2') });
    const more = await webhookReadsOf(() => consumeWebhookMessages([record(eventOf(a.ws, 'evt-a7'))], queue));
    expect(more).toEqual([keys.webhookCollection(a.ws)]);
    expect(receiver.received('/batch-a2')).toHaveLength(1);
    expect(receiver.received('/batch-a')).toHaveLength(7);
  });

  test('a webhook made after an event happened (the event still on its way) gets no delivery of it; one made before does', async () => {
    const before = await webhookTo('/existed');
    const event = eventOf(before.ws, 'evt-earlier');
    const after = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
    // Made a millisecond or more after the event's occurred_at, as a create racing the stream's lag is.
    await new Promise((r) => setTimeout(r, 2));
    await writeWebhook({ id: after, workspace: before.ws, url: receiver.url('/made-later') });
    const { queue, retries } = keptQueue();
    const out = await consumeWebhookMessages([record(event)], queue);
    expect(out.tally).toMatchObject({ delivered: 1, errors: 0 });
    expect(receiver.received('/existed')).toHaveLength(1);
    expect(receiver.received('/made-later')).toHaveLength(0);
    expect(retries).toHaveLength(0);
    expect(await deliveriesOf(before.ws, after)).toEqual([]);
    // What happens from its creation on reaches it.
    await consumeWebhookMessages([record(eventOf(before.ws, 'evt-later'))], queue);
    expect(receiver.received('/made-later')).toHaveLength(1);
  });

  test('an event delivered twice at once (at-least-once queues do that) makes one delivery and one send', async () => {
    const { ws, id } = await webhookTo('/twice');
    const { queue } = keptQueue();
    const event = eventOf(ws, 'evt-twice');
    const [a, b] = await Promise.all([
      consumeWebhookMessages([record(event, 1)], queue),
      consumeWebhookMessages([record(event, 2)], queue),
    ]);
    expect([a.tally.delivered + b.tally.delivered, a.tally.skipped + b.tally.skipped]).toEqual([1, 1]);
    expect(receiver.received('/twice')).toHaveLength(1);
    const delivery = await readDelivery(ws, id, String(receiver.received('/twice')[0]!.headers['webhook-id']));
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, auto_attempts: 1 });
  });

  test('a retry whose message came twice is sent once; one superseded by a later schedule is dropped', async () => {
    receiver.answer('/retry', () => 503);
    const { ws, id } = await webhookTo('/retry');
    const { queue, retries } = keptQueue();
    await consumeWebhookMessages([record(eventOf(ws, 'evt-retry'))], queue);
    expect(retries).toHaveLength(1);
    const scheduled = retries[0]!.message;
    const due = { ...scheduled, due_at: new Date(Date.now() - 1).toISOString() };
    // The message is due (as SQS would hand it over once its delay passed): move the schedule to it.
    await recordAttempt({ workspace: ws, webhook_id: id, id: scheduled.delivery_id }, { next_attempt_at: due.due_at }, [], 'none');
    await Promise.all([consumeWebhookMessages([record(due, 1)], queue), consumeWebhookMessages([record(due, 2)], queue)]);
    expect(receiver.received('/retry')).toHaveLength(2);
    // The original message now names a schedule older than the one recorded.
    const stale = { ...scheduled, due_at: new Date(Date.parse(due.due_at) - 1000).toISOString() };
    const out = await consumeWebhookMessages([record(stale)], queue);
    expect(out.tally).toMatchObject({ skipped: 1, delivered: 0, retrying: 0 });
    expect(receiver.received('/retry')).toHaveLength(2);
    expect(await readDelivery(ws, id, scheduled.delivery_id)).toMatchObject({ status: 'pending', attempts: 2, auto_attempts: 2 });
  });

  test("retries are spread: deliveries that failed together wait the schedule's time, each moved by up to 20% at random", async () => {
    const { ws } = await webhookTo('/down');
    receiver.answer('/down', () => 500);
    const { queue, retries } = keptQueue();
    await consumeWebhookMessages(
      Array.from({ length: 20 }, (_, i) => record(eventOf(ws, `evt-down-${i}`), i)),
      queue,
    );
    expect(retries).toHaveLength(20);
    const first = deliverySettings().retriesMs[0]!;
    const waits = retries.map((r) => r.delayMs);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(Math.floor(first * 0.8));
      expect(wait).toBeLessThanOrEqual(Math.ceil(first * 1.2));
    }
    // Not in lockstep: twenty waits drawn from a 40% band are not all one (or two) values.
    expect(new Set(waits).size).toBeGreaterThan(10);
  });

  test("a 429 or 503 with Retry-After is waited at least that long; another status's Retry-After is not", async () => {
    const { ws } = await webhookTo('/busy');
    receiver.answer('/busy', (n) =>
      n === 1 ? { status: 503, headers: { 'retry-after': '600' } } : { status: 500, headers: { 'retry-after': '600' } },
    );
    const { queue, retries } = keptQueue();
    await consumeWebhookMessages([record(eventOf(ws, 'evt-busy-1'))], queue);
    await consumeWebhookMessages([record(eventOf(ws, 'evt-busy-2'))], queue);
    const [busy, failed] = retries;
    expect(busy!.delayMs).toBe(600_000);
    expect(Date.parse(busy!.message.due_at) - Date.now()).toBeGreaterThan(590_000);
    expect(failed!.delayMs).toBeLessThanOrEqual(Math.ceil(deliverySettings().retriesMs[0]! * 1.2));
  });

  test('an endpoint already failing gets its new deliveries on the retry lane, not inline', async () => {
    const { ws } = await webhookTo('/failing', { failing_since: new Date().toISOString(), last_failure_at: new Date().toISOString() });
    const { queue, retries } = keptQueue();
    const out = await consumeWebhookMessages([record(eventOf(ws, 'evt-failing'))], queue);
    expect(out.tally).toMatchObject({ skipped: 1, delivered: 0 });
    expect(receiver.received('/failing')).toEqual([]);
    expect(retries).toEqual([{ message: expect.objectContaining({ kind: 'attempt' }), delayMs: 0 }]);
  });

  test('failures far apart are not one outage: a failure long after the last starts a new run instead of turning the webhook off', async () => {
    const { ws, id } = await webhookTo('/blip');
    // Each failure as an attempt makes it: with the webhook as read just before.
    const fail = async (when: string, freshAfter: string) => webhookHealth.failing((await readWebhook(ws, id))!, when, freshAfter);
    const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();
    const longAgo = at(-30 * 24 * 3600_000);
    expect(await fail(longAgo, at(-31 * 24 * 3600_000))).toBe(longAgo);
    const now = at(0);
    const since = await fail(now, at(-12 * 3600_000));
    expect(since).toBe(now);
    // Within the run, the start stays; the failures of its next minute are not written, those after it are.
    expect(await fail(at(1000), now)).toBe(now);
    expect(await readHealth(ws, id)).toMatchObject({ failing_since: now, last_failure_at: now });
    const minuteOn = at(HEALTH_QUIET_MS + 1000);
    expect(await fail(minuteOn, now)).toBe(now);
    expect(await readHealth(ws, id)).toMatchObject({ failing_since: now, last_failure_at: minuteOn });
    // The webhook item shows the run's start alone (its failures are kept on the health item).
    const webhook = await readWebhook(ws, id);
    expect(webhook).toMatchObject({ active: true, failing_since: now });
    expect(webhook?.last_failure_at).toBeUndefined();
  });
});

/** The webhook's deliveries, newest first (its log's first page). */
const deliveriesOf = async (ws: string, id: string) => (await listDeliveries(ws, id, { limit: 100 })).items;

describe("a delivery's payload", () => {
  test('is kept apart, as are its attempts: the log reads a small item whatever the body, each send carries the body byte for byte, and one kept inline (before) is sent from there', async () => {
    const { ws, id } = await webhookTo('/apart');
    const { queue } = keptQueue();
    const big = eventOf(ws, 'evt-apart');
    big.detail.data = { ...big.detail.data, title: 'L', description: '\u{1F600}'.repeat(25_000) } as typeof big.detail.data;
    expect((await consumeWebhookMessages([record(big)], queue)).tally).toMatchObject({ delivered: 1 });
    const [sent] = receiver.received('/apart');
    expect(Buffer.byteLength(sent!.body)).toBeGreaterThan(100_000);
    const collection = await deliveryItems(ws, id);
    const byPrefix = [keys.webhookDeliverySkPrefix, 'PAYLOAD#'].map((prefix) =>
      collection.Items!.filter((i) => String(i.SK).startsWith(prefix)),
    );
    const [delivery, payload] = [byPrefix[0]!, byPrefix[1]!];
    // The delivery's own item, what the log and a recovery read: no payload, a few hundred bytes.
    expect(delivery).toHaveLength(1);
    expect(delivery[0]!.payload).toBeUndefined();
    expect(JSON.stringify(delivery[0]).length).toBeLessThan(1_000);
    expect(payload.map((i) => i.payload)).toEqual([sent!.body]);
    // A redelivery reads the payload from its item: the same bytes again.
    expect((await redeliver(ws, id, delivery[0]!.id as string, anyCarried)).status).toBe('delivered');
    expect(receiver.received('/apart').map((r) => r.body)).toEqual([sent!.body, sent!.body]);
    // Its attempts are items beside it too: the delivery stays as small however many it has; the detail reads them.
    const after = await deliveryItems(ws, id);
    const itemOf = after.Items!.find((i) => i.SK === delivery[0]!.SK)!;
    expect(itemOf.attempt_log).toBeUndefined();
    expect(after.Items!.filter((i) => String(i.SK).startsWith(keys.deliveryAttemptPrefix(delivery[0]!.id)))).toHaveLength(2);
    const detail = await getDelivery(ws, id, delivery[0]!.id as string);
    expect(detail.attempt_log!.map((a) => a.trigger)).toEqual(['automatic', 'manual']);

    // A delivery stored before payloads moved keeps its body on its own item, and is sent with it.
    const legacyId = `msg_${Date.now().toString(16).padStart(12, '0')}${'1'.repeat(20)}`;
    const inline = JSON.stringify({ type: 'Label Created', timestamp: new Date().toISOString(), data: { company_slug: ws } });
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookDelivery(ws, id, legacyId, await shardOfDelivery(legacyId)),
          type: ItemType.webhookDelivery,
          id: legacyId,
          webhook_id: id,
          workspace: ws,
          event_type: 'Label Created',
          event_id: 'evt-inline',
          payload: inline,
          status: 'failed',
          attempts: 1,
          created_at: new Date().toISOString(),
          attempt_log: [{ at: new Date(Date.now() - 1000).toISOString(), status_code: 500, duration_ms: 5, trigger: 'automatic' }],
        },
      }),
    );
    expect((await redeliver(ws, id, legacyId, anyCarried)).status).toBe('delivered');
    expect(receiver.received('/apart').at(-1)!.body).toBe(inline);
    // Its log kept on itself, and the attempt made since beside it: both, oldest first.
    const legacy = await getDelivery(ws, id, legacyId);
    expect(legacy.attempt_log!.map((a) => [a.trigger, a.status_code])).toEqual([
      ['automatic', 500],
      ['manual', expect.any(Number)],
    ]);
  });
});

describe('sends made for one URL never go to another', () => {
  test('a delivery made before the URL changed is neither redelivered nor recovered; one made since is both; a guard that refuses stops both', async () => {
    receiver.answer('/before-move', () => 503);
    const { ws, id } = await webhookTo('/before-move');
    const { queue, retries } = keptQueue();
    await consumeWebhookMessages([record(eventOf(ws, 'evt-before-move'))], queue);
    const made = (await deliveriesOf(ws, id))[0]!;
    await updateWebhook(ws, id, { url: receiver.url('/after-move') }, anyCarried);
    await expect(redeliver(ws, id, made.id, anyCarried)).rejects.toThrow(/made for an earlier URL/);
    expect(receiver.received('/after-move')).toEqual([]);
    /** A recovery of every delivery since the epoch, on the kept queue as its retry lane. */
    const recoverAll = async () => {
      useLocalRetryLane(queue);
      try {
        return await recoverDeliveries(ws, id, 0, anyCarried);
      } finally {
        useLocalRetryLane(undefined);
      }
    };
    expect(await recoverAll()).toEqual({ queued: 0, more: false });
    // Made since the move (and failed there): recovered, and sent there on request.
    receiver.answer('/after-move', () => 503);
    await consumeWebhookMessages([record(eventOf(ws, 'evt-after-move'))], queue);
    const newer = (await deliveriesOf(ws, id)).find((d) => d.id !== made.id)!;
    // The webhook is failing, so its send waits on the queue: attempted from there, it fails and waits for a retry.
    await consumeWebhookMessages([record(retries.at(-1)!.message)], queue);
    expect(await readDelivery(ws, id, newer.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await recoverAll()).toEqual({ queued: 1, more: false });
    receiver.answer('/after-move', () => 200);
    expect((await redeliver(ws, id, newer.id, anyCarried)).status).toBe('delivered');
    const refusing = () => {
      throw new Conflict('refused by the guard');
    };
    await expect(redeliver(ws, id, newer.id, refusing)).rejects.toThrow('refused by the guard');
    await expect(recoverDeliveries(ws, id, 0, refusing)).rejects.toThrow('refused by the guard');
    await expect(updateWebhook(ws, id, { url: receiver.url('/third') }, refusing)).rejects.toThrow('refused by the guard');
    // A change that points it nowhere new (its description) asks no guard.
    expect((await updateWebhook(ws, id, { description: 'moved' }, refusing)).description).toBe('moved');
  });
});

describe('a webhook narrowed to fewer types', () => {
  test('sends no delivery of a type it no longer subscribes to: neither its scheduled retry nor a redelivery', async () => {
    receiver.answer('/narrowed', () => 503);
    const { ws, id } = await webhookTo('/narrowed');
    const { queue } = keptQueue();
    await consumeWebhookMessages([record(eventOf(ws, 'evt-narrowed'))], queue);
    const made = (await deliveriesOf(ws, id))[0]!;
    expect(made).toMatchObject({ event_type: 'Label Created', status: 'pending' });
    expect(receiver.received('/narrowed')).toHaveLength(1);
    const narrowed = await updateWebhook(ws, id, { events: ['Project Created'] }, anyCarried);
    await expect(redeliver(ws, id, made.id, anyCarried)).rejects.toThrow(/no longer subscribes to Label Created/);
    // Its retry, when due: claimed as the retry lane claims it, then ended unsent.
    const due = (await readDelivery(ws, id, made.id))!;
    const until = new Date(Date.now() + 30_000).toISOString();
    expect(await claimDelivery(due, due.next_attempt_at!, new Date().toISOString(), until)).toBeTruthy();
    expect(await attemptScheduled(due, narrowed, queue, until)).toBe('skipped');
    expect(await readDelivery(ws, id, made.id)).toMatchObject({
      status: 'failed',
      last_error: 'Not sent: the webhook no longer subscribes to Label Created.',
    });
    expect(receiver.received('/narrowed')).toHaveLength(1);
  });
});

describe('a recovery', () => {
  test('holds its webhook: a second one while the first runs is a 409 with Retry-After, and one after it runs', async () => {
    const { ws, id } = await webhookTo('/leased');
    const { queue } = keptQueue();
    useLocalRetryLane(queue);
    try {
      expect(await takeRecoveryLease(ws, id, 30, 'a-running-recovery')).toEqual({ taken: true });
      const refused = await recoverDeliveries(ws, id, 0, anyCarried).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Conflict);
      expect((refused as Conflict).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((refused as Conflict).retryAfterSeconds).toBeLessThanOrEqual(10);
      // Another webhook's recovery is not held by it.
      const other = await webhookTo('/leased-other');
      expect(await recoverDeliveries(other.ws, other.id, 0, anyCarried)).toEqual({ queued: 0, more: false });
      await freeRecoveryLease(ws, id, 'a-running-recovery');
      expect(await recoverDeliveries(ws, id, 0, anyCarried)).toEqual({ queued: 0, more: false });
      // Each call frees its lease as it ends: the next one runs at once.
      expect(await recoverDeliveries(ws, id, 0, anyCarried)).toEqual({ queued: 0, more: false });
    } finally {
      useLocalRetryLane(undefined);
    }
  });

  test('queues every delivery since then that failed or waits for a retry, once; the waiting one’s old message then sends nothing', async () => {
    receiver.answer('/outage', (n) => (n <= 1 ? 503 : 200));
    const { ws, id } = await webhookTo('/outage');
    const { queue, retries } = keptQueue();
    const since = Date.now() - 1000;
    await consumeWebhookMessages([record(eventOf(ws, 'evt-waiting'))], queue);
    // The endpoint is failing now: the second event's delivery goes to the retry lane unsent.
    await consumeWebhookMessages([record(eventOf(ws, 'evt-failed'))], queue);
    const [waiting, failed] = retries.map((r) => r.message) as [AttemptMessage, AttemptMessage];
    // It ran out of attempts (as after a day of them).
    await recordAttempt({ workspace: ws, webhook_id: id, id: failed.delivery_id }, { status: 'failed' }, ['next_attempt_at'], 'none');
    retries.length = 0;
    useLocalRetryLane(queue);
    try {
      expect(await recoverDeliveries(ws, id, since, anyCarried)).toEqual({ queued: 2, more: false });
      // Both are due now and queued: a second recovery finds nothing left to queue.
      expect(await recoverDeliveries(ws, id, since, anyCarried)).toEqual({ queued: 0, more: false });
      // Deliveries before `since` are not its concern.
      expect(await recoverDeliveries(ws, id, Date.now() + 60_000, anyCarried)).toEqual({ queued: 0, more: false });
    } finally {
      useLocalRetryLane(undefined);
    }
    expect(retries.map((r) => [r.message.delivery_id, r.delayMs]).sort()).toEqual(
      [
        [waiting.delivery_id, 0],
        [failed.delivery_id, 0],
      ].sort(),
    );
    // The waiting delivery's old retry message comes before the recovery's: it sends nothing, and is not kept waiting.
    const queuedNow = retries.map((r) => r.message);
    retries.length = 0;
    expect((await consumeWebhookMessages([record(waiting)], queue)).tally).toMatchObject({ skipped: 1 });
    expect(retries).toEqual([]);
    const out = await consumeWebhookMessages(
      queuedNow.map((m, i) => record(m, i)),
      queue,
    );
    expect(out.tally).toMatchObject({ delivered: 2 });
    expect(receiver.received('/outage')).toHaveLength(3);
    for (const m of queuedNow) expect(await readDelivery(ws, id, m.delivery_id)).toMatchObject({ status: 'delivered' });
  });

  test('takes a delivery long overdue (its message lost), but not one due just now (its message on its way)', async () => {
    receiver.answer('/lost', () => 503);
    const { ws, id } = await webhookTo('/lost');
    const { queue, retries } = keptQueue();
    await consumeWebhookMessages([record(eventOf(ws, 'evt-lost'))], queue);
    const lost = retries[0]!.message;
    const due = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const at = { workspace: ws, webhook_id: id, id: lost.delivery_id };
    useLocalRetryLane(queue);
    try {
      retries.length = 0;
      await recordAttempt(at, { next_attempt_at: due(1000) }, [], 'none');
      expect(await recoverDeliveries(ws, id, 0, anyCarried)).toEqual({ queued: 0, more: false });
      await recordAttempt(at, { next_attempt_at: due(2 * 3600_000) }, [], 'none');
      expect(await recoverDeliveries(ws, id, 0, anyCarried)).toEqual({ queued: 1, more: false });
      expect(retries).toEqual([{ message: expect.objectContaining({ delivery_id: lost.delivery_id }), delayMs: 0 }]);
    } finally {
      useLocalRetryLane(undefined);
    }
  });

  test('of a webhook turned off is refused until it is on again; of none, a 404; without a retry lane, a 503', async () => {
    const ws = uniqueWorkspace('engine');
    await writeWebhook({ id: 'wh_turnedoff000000000000000', workspace: ws, url: receiver.url('/off'), active: false });
    await expect(recoverDeliveries(ws, 'wh_missing', 0, anyCarried)).rejects.toBeInstanceOf(NotFound);
    await expect(recoverDeliveries(ws, 'wh_turnedoff000000000000000', 0, anyCarried)).rejects.toBeInstanceOf(Conflict);
    receiver.answer('/lane', () => 503);
    const other = await webhookTo('/lane');
    const { queue } = keptQueue();
    await consumeWebhookMessages([record(eventOf(other.ws, 'evt-lane'))], queue);
    await expect(recoverDeliveries(other.ws, other.id, 0, anyCarried)).rejects.toBeInstanceOf(Busy);
  });
});
