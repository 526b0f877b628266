import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { SQSRecord } from 'aws-lambda';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_SOURCE } from '#domain/eventNames';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import type { DeliveryRecord } from '#webhooks/entities';
import { webhookBreaker } from '#webhooks/store/webhookBreaker';
import { webhookHealth } from '#webhooks/store/webhookHealth';
import { readWebhook } from '#webhooks/store/webhooks';
import { writeWebhook } from '#local/sampleWebhooks';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { deliveryId, newDelivery } from '#webhooks/deliveries';
import { putNewDelivery } from '#webhooks/store/webhookDeliveries';
import { type LaneMessage, type ProbeMessage, useLocalRetryLane, type WebhookQueue } from '#webhooks/queue';
import { recoverDeliveries } from '#webhooks/recovery';
import { uniqueWorkspace } from '#support/api';
import { deliveryItems } from '#support/deliveries';
import { useInProcessReceiver } from './receiver.ts';

/** The recoveries here are the engine's: the caller's scopes are the routes' concern (test/hostile/scope-matrix.test.ts). */
const anyCarried = () => undefined;

/**
 * The circuit breaker (functions/commons/webhooks/breaker.ts, probes.ts), in process against the suite's
 * DynamoDB Local with the lanes in the test's hands: an endpoint failing for longer than the breaker
 * waits costs one attempt at a time, whatever the number of deliveries, and they go out oldest first
 * once a probe succeeds. The schedule is shortened (10 ms waits) so that a probe is due at once.
 */
const receiver = useInProcessReceiver();

beforeEach(() => {
  process.env.WEBHOOKS_RETRY_SCHEDULE = '10ms,10ms,10ms';
});
afterEach(() => {
  delete process.env.WEBHOOKS_RETRY_SCHEDULE;
});

function keptLane() {
  const messages: LaneMessage[] = [];
  const lane: WebhookQueue = { later: async (m) => void messages.push(m), deadLetter: async () => undefined };
  const take = <K extends LaneMessage['kind']>(kind: K) => {
    const found = messages.filter((m) => m.kind === kind) as Extract<LaneMessage, { kind: K }>[];
    messages.splice(0, messages.length, ...messages.filter((m) => m.kind !== kind));
    return found;
  };
  return { lane, messages, take };
}

const record = (body: unknown) => ({ messageId: `m-${Math.random()}`, body: JSON.stringify(body) }) as SQSRecord;
const eventOf = (ws: string, n: number) => ({
  version: '0',
  id: `evt-${n}`,
  'detail-type': 'Label Created',
  source: EVENT_SOURCE,
  time: new Date().toISOString(),
  detail: {
    event_id: `evt-${n}`,
    company_slug: ws,
    // A millisecond apart: the deliveries' ids sort by their events' times.
    occurred_at: new Date(Date.now() - 1000 + n).toISOString(),
    actor: null,
    data: { id: n, slug: `l-${n}`, title: `Label ${n}`, color: 'FF0000' },
  },
});

/** A webhook's times when made before its run of failures and the events here (a second old: a webhook gets no event from before it existed). */
function madeAnHourAgo() {
  const at = new Date(Date.now() - 3_600_000).toISOString();
  return { created_at: at, updated_at: at };
}

/** A webhook whose endpoint has failed for ten minutes (its run kept as the deliverer keeps it): its breaker opens at the next attempt. */
async function failingWebhook(path: string) {
  const ws = uniqueWorkspace('breaker');
  const id = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
  const since = new Date(Date.now() - 600_000).toISOString();
  await writeWebhook({ id, workspace: ws, url: receiver.url(path), ...madeAnHourAgo() });
  await webhookHealth.failing({ workspace: ws, id }, since, since);
  await webhookHealth.failing({ workspace: ws, id, failing_since: since }, new Date().toISOString(), since);
  return { ws, id };
}

/** The webhook's deliveries, oldest first. */
async function deliveriesOf(ws: string, id: string): Promise<(DeliveryRecord & { PK: string; SK: string })[]> {
  const { Items } = await deliveryItems(ws, id);
  return Items.filter((i) => String(i.SK).startsWith(keys.webhookDeliverySkPrefix)) as (DeliveryRecord & { PK: string; SK: string })[];
}

const readHealth = async (ws: string, id: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhookHealth(ws, id), ConsistentRead: true }))).Item;

/** A probe's message handed to the deliverer once it is due (the schedule's 10 ms). */
async function runProbe(probe: ProbeMessage, lane: WebhookQueue) {
  while (Date.parse(probe.due_at) > Date.now()) await new Promise((r) => setTimeout(r, 5));
  return consumeWebhookMessages([record(probe)], lane);
}

describe('a failing endpoint behind its breaker', () => {
  test('new deliveries park behind one probe; a failed probe arms the next; a success sends every one, oldest first', async () => {
    receiver.answer('/down-then-up', (n) => (n <= 1 ? 500 : 204));
    const { ws, id } = await failingWebhook('/down-then-up');
    const { lane, take } = keptLane();
    // Five events while it fails: five deliveries, none sent, and one probe armed (not one per delivery).
    const tallies = await Promise.all([1, 2, 3, 4, 5].map((n) => consumeWebhookMessages([record(eventOf(ws, n))], lane)));
    expect(tallies.map((t) => t.tally.parked)).toEqual([1, 1, 1, 1, 1]);
    expect(receiver.received('/down-then-up')).toHaveLength(0);
    expect(take('attempt')).toEqual([]);
    const [probe, ...more] = take('probe');
    expect(more).toEqual([]);
    const parked = await deliveriesOf(ws, id);
    expect(parked.map((d) => [d.status, d.attempts])).toEqual(Array(5).fill(['pending', 0]));

    // The probe: one attempt, of the oldest delivery; it fails, and the next probe is armed.
    const first = await runProbe(probe!, lane);
    expect(first.tally).toMatchObject({ retrying: 1 });
    const [sent] = receiver.received('/down-then-up');
    expect(sent!.json.data.event_id).toBe('evt-1');
    const [next, ...again] = take('probe');
    expect(again).toEqual([]);
    expect(await readHealth(ws, id)).toMatchObject({ probes: 1, probe_at: next!.due_at });
    // The same probe's message again (at-least-once): nothing is sent twice.
    await consumeWebhookMessages([record(probe)], lane);
    expect(receiver.received('/down-then-up')).toHaveLength(1);
    expect(take('probe')).toEqual([]);

    // The endpoint answers again: the next probe succeeds, closes the breaker and releases the rest, oldest first.
    const second = await runProbe(next!, lane);
    expect(second.tally).toMatchObject({ delivered: 1 });
    expect(take('attempt')).toEqual([]);
    const [release, ...releases] = take('release');
    expect(releases).toEqual([]);
    expect((await consumeWebhookMessages([record(release)], lane)).tally).toMatchObject({ released: 4 });
    const released = take('attempt');
    expect(released.map((m) => m.delivery_id)).toEqual(
      parked
        .slice(1)
        .map((d) => d.id)
        .sort(),
    );
    for (const m of released) await consumeWebhookMessages([record(m)], lane);
    expect(receiver.received('/down-then-up').map((r) => r.json.data.event_id)).toEqual([
      'evt-1',
      'evt-1',
      'evt-2',
      'evt-3',
      'evt-4',
      'evt-5',
    ]);
    const after = await deliveriesOf(ws, id);
    expect(after.map((d) => d.status)).toEqual(Array(5).fill('delivered'));
    expect((await readWebhook(ws, id))?.failing_since).toBeUndefined();
    const health = await readHealth(ws, id);
    expect([health?.failing_since, health?.probe_at, health?.probes]).toEqual([undefined, undefined, undefined]);
  });

  test('a retry due while the breaker is open parks instead of sending; two copies of one probe send once', async () => {
    receiver.answer('/still-down', () => 503);
    const { ws, id } = await failingWebhook('/still-down');
    const { lane, take } = keptLane();
    // A delivery whose retry, scheduled before the breaker opened, is due now.
    const webhook = (await readWebhook(ws, id))!;
    const due = new Date().toISOString();
    const delivery = { ...newDelivery(webhook, 'Label Created', 'evt-1', deliveryId(Date.now(), id, 'evt-1'), {}), next_attempt_at: due };
    await putNewDelivery(delivery);
    const retry = { kind: 'attempt', workspace: ws, webhook_id: id, delivery_id: delivery.id, due_at: due };
    expect((await consumeWebhookMessages([record(retry)], lane)).tally).toMatchObject({ parked: 1 });
    expect(receiver.received('/still-down')).toHaveLength(0);
    expect((await deliveriesOf(ws, id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    // Its message again: superseded by the parked schedule, it sends nothing.
    expect((await consumeWebhookMessages([record(retry)], lane)).tally).toMatchObject({ parked: 0, skipped: 1 });
    const [probe, ...more] = take('probe');
    expect(more).toEqual([]);
    const [a, b] = await Promise.all([runProbe(probe!, lane), runProbe(probe!, lane)]);
    expect(a.tally.retrying + b.tally.retrying).toBe(1);
    expect(receiver.received('/still-down')).toHaveLength(1);
    expect(take('probe')).toHaveLength(1);
  });

  test('a parked delivery whose wait ran out (no probe sent it in time) is still the next probe’s', async () => {
    receiver.answer('/slow-to-recover', (n) => (n <= 1 ? 500 : 204));
    const { ws, id } = await failingWebhook('/slow-to-recover');
    const { lane, take } = keptLane();
    await consumeWebhookMessages([record(eventOf(ws, 1))], lane);
    await runProbe(take('probe')[0]!, lane);
    const [delivery] = await deliveriesOf(ws, id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    // Its parked schedule passed two minutes ago (the sweeper takes it only an hour on).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: delivery!.PK, SK: delivery!.SK },
        UpdateExpression: 'SET next_attempt_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 120_000).toISOString() },
      }),
    );
    expect((await runProbe(take('probe')[0]!, lane)).tally).toMatchObject({ delivered: 1 });
    expect(receiver.received('/slow-to-recover')).toHaveLength(2);
  });

  test('a webhook turned off while its deliveries wait: the next probe ends them unsent', async () => {
    const { ws, id } = await failingWebhook('/off-while-waiting');
    const { lane, take } = keptLane();
    for (const n of [1, 2]) await consumeWebhookMessages([record(eventOf(ws, n))], lane);
    const [probe] = take('probe');
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(ws, id),
        UpdateExpression: 'SET active = :false',
        ExpressionAttributeValues: { ':false': false },
      }),
    );
    await runProbe(probe!, lane);
    for (const release of take('release')) await consumeWebhookMessages([record(release)], lane);
    const released = take('attempt');
    expect(released).toHaveLength(2);
    for (const m of released) await consumeWebhookMessages([record(m)], lane);
    expect(receiver.received('/off-while-waiting')).toHaveLength(0);
    expect((await deliveriesOf(ws, id)).map((d) => [d.status, d.last_error])).toEqual(
      Array(2).fill(['failed', 'Not sent: the webhook is turned off.']),
    );
  });

  test('a probe cut short after taking the breaker (its message comes again) is taken up again, once', async () => {
    const { ws, id } = await failingWebhook('/cut-short');
    receiver.answer('/cut-short', () => 500);
    const { lane, take } = keptLane();
    await consumeWebhookMessages([record(eventOf(ws, 1))], lane);
    const [probe] = take('probe');
    // The first handling took the probe and stopped there (a crash).
    while (Date.parse(probe!.due_at) > Date.now()) await new Promise((r) => setTimeout(r, 5));
    // (Its hold already lapsed: a copy of the message arriving while it runs takes nothing.)
    const now = new Date().toISOString();
    expect((await webhookBreaker.take(ws, id, probe!.due_at, now, new Date(Date.now() + 60_000).toISOString())).taken).toBe(true);
    expect((await runProbe(probe!, lane)).tally).toMatchObject({ skipped: 1 });
    expect((await webhookBreaker.take(ws, id, probe!.due_at, new Date(Date.now() + 120_000).toISOString(), now)).taken).toBe(true);
    expect((await runProbe(probe!, lane)).tally).toMatchObject({ retrying: 1 });
    expect((await runProbe(probe!, lane)).tally).toMatchObject({ retrying: 0, skipped: 1 });
    expect(receiver.received('/cut-short')).toHaveLength(1);
  });

  test('a probe that finds nothing waiting ends its chain; the next delivery to wait arms another', async () => {
    const { ws, id } = await failingWebhook('/nothing-waits');
    const { lane, take } = keptLane();
    await consumeWebhookMessages([record(eventOf(ws, 1))], lane);
    const [delivery] = await deliveriesOf(ws, id);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: delivery!.PK, SK: delivery!.SK },
        UpdateExpression: 'SET #status = :failed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed' },
      }),
    );
    expect((await runProbe(take('probe')[0]!, lane)).tally).toMatchObject({ skipped: 1 });
    expect(take('probe')).toEqual([]);
    expect((await readHealth(ws, id))?.probe_at).toBeUndefined();
    expect((await consumeWebhookMessages([record(eventOf(ws, 2))], lane)).tally).toMatchObject({ parked: 1 });
    expect(take('probe')).toHaveLength(1);
  });

  test('a run whose last failure is long past no longer holds deliveries back: the next one is sent', async () => {
    receiver.answer('/quiet', () => 204);
    const ws = uniqueWorkspace('breaker');
    const id = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
    await writeWebhook({ id, workspace: ws, url: receiver.url('/quiet'), ...madeAnHourAgo() });
    const since = new Date(Date.now() - 600_000).toISOString();
    await webhookHealth.failing({ workspace: ws, id }, since, since);
    const { lane, take } = keptLane();
    // A failing endpoint's new delivery goes to the retry lane first; there, it is sent.
    expect((await consumeWebhookMessages([record(eventOf(ws, 1))], lane)).tally).toMatchObject({ parked: 0 });
    const [attempt] = take('attempt');
    expect((await consumeWebhookMessages([record(attempt)], lane)).tally).toMatchObject({ delivered: 1 });
    expect(take('probe')).toEqual([]);
  });

  test('a recovery while the breaker is open is refused, saying when the next probe is due; after a ping’s success it sends them', async () => {
    const { ws, id } = await failingWebhook('/recover-behind');
    const { lane, take } = keptLane();
    await consumeWebhookMessages([record(eventOf(ws, 1))], lane);
    const [probe] = take('probe');
    useLocalRetryLane(lane);
    try {
      await expect(recoverDeliveries(ws, id, Date.now() - 3_600_000, anyCarried)).rejects.toThrow(/circuit breaker is open.*due/);
      await webhookHealth.healthy(ws, id, new Date().toISOString()); // what a ping's 2xx does
      expect(await recoverDeliveries(ws, id, Date.now() - 3_600_000, anyCarried)).toEqual({ queued: 1, more: false });
    } finally {
      useLocalRetryLane(undefined);
    }
    expect(take('attempt')).toHaveLength(1);
    // The chain's probe, when it comes, finds the breaker closed: it releases (nothing left waiting) and sends nothing.
    await runProbe(probe!, lane);
    expect(take('release')).toHaveLength(1);
    expect(receiver.received('/recover-behind')).toHaveLength(0);
  });

  test('an endpoint failing for less than twice the first wait is not behind the breaker (a blip): its retry is sent', async () => {
    receiver.answer('/blip', () => 204);
    process.env.WEBHOOKS_RETRY_SCHEDULE = '10s'; // the breaker would open after 20 s: far more than this test takes
    const ws = uniqueWorkspace('breaker');
    const id = `wh_${Math.random().toString(16).slice(2, 14).padEnd(24, '0')}`;
    await writeWebhook({ id, workspace: ws, url: receiver.url('/blip'), ...madeAnHourAgo() });
    const now = new Date().toISOString();
    await webhookHealth.failing({ workspace: ws, id }, now, now);
    const { lane, take } = keptLane();
    await consumeWebhookMessages([record(eventOf(ws, 1))], lane);
    const [attempt] = take('attempt');
    expect(take('probe')).toEqual([]);
    const sent = await consumeWebhookMessages([record(attempt)], lane);
    expect(sent.tally).toMatchObject({ delivered: 1 });
  });
});
