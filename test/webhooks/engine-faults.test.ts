import type { MiddlewareStack } from '@smithy/types';
import type { SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, test } from 'vitest';
import { EVENT_SOURCE } from '#domain/eventNames';
import { writeWebhook } from '#local/sampleWebhooks';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { claimDelivery, putNewDelivery, readDelivery } from '#webhooks/store/webhookDeliveries';
import { HEALTH_QUIET_MS, webhookHealth } from '#webhooks/store/webhookHealth';
import { readWebhook } from '#webhooks/store/webhooks';
import { consumeWebhookMessages } from '#webhooks/consumer';
import type { DeliveryRecord, WebhookRecord } from '#webhooks/entities';
import type { AttemptMessage, ProbeMessage, WebhookQueue } from '#webhooks/queue';
import { LOST_AFTER_MS } from '#webhooks/settings';
import { MAX_SWEEPS, sweepDeliveries } from '#webhooks/sweeper';
import { usePrivateTable } from '#support/privateTable';
import { useInProcessReceiver } from './receiver.ts';

/**
 * The delivery engine when things go wrong, in process against a table of this file's own (a sweep
 * reads every workspace's deliveries): a delivery whose message was lost (the sweeper), one webhook's
 * part of an event failing beside another's send, and the record of a sent attempt refused by the
 * table. Faults are planted on the shared DocumentClient, for one call matched by what it writes.
 */
usePrivateTable(`engine-faults-${process.pid}`);
const receiver = useInProcessReceiver();

type Plant = (command: string, input: string) => 'fail' | 'lose-answer' | undefined;
let plant: Plant = () => undefined;
/** Told of every call that succeeded, when set. */
let observe: ((command: string, input: string) => void) | undefined;
afterEach(() => {
  plant = () => undefined;
  observe = undefined;
});
(db.middlewareStack as MiddlewareStack<any, any>).add(
  (next, context) => async (args) => {
    const fault = plant(context.commandName!, JSON.stringify(args.input));
    if (fault === 'fail')
      throw Object.assign(new Error('injected: the table is unavailable'), { name: 'InternalServerError', $fault: 'server' });
    const out = await next(args);
    observe?.(context.commandName!, JSON.stringify(args.input));
    if (fault === 'lose-answer') throw Object.assign(new Error('injected: the answer was lost'), { name: 'TimeoutError' });
    return out;
  },
  { step: 'initialize', name: 'engineFaults', override: true },
);

function keptQueue() {
  const retries: { message: AttemptMessage; delayMs: number }[] = [];
  const queue: WebhookQueue = {
    later: async (message, delayMs) => void retries.push({ message: message as AttemptMessage, delayMs }),
    deadLetter: async () => undefined,
  };
  return { queue, retries };
}

let n = 0;
const record = (body: unknown) => ({ messageId: `m-${++n}`, body: JSON.stringify(body) }) as SQSRecord;
const ws = () => `faults-${++n}-${process.pid}`;
const webhookId = () => `wh_${(++n).toString(16).padStart(24, '0')}`;

async function webhookTo(workspace: string, path: string, fields: { active?: boolean } = {}) {
  const id = webhookId();
  await writeWebhook({ id, workspace, url: receiver.url(path), ...fields });
  return id;
}

/** A delivery pending since `dueMsAgo`, whose message is gone (as if it went to the dead-letter queue). */
async function lostDelivery(workspace: string, webhook: string, dueMsAgo: number, extra: Partial<DeliveryRecord> = {}) {
  const due = new Date(Date.now() - dueMsAgo).toISOString();
  const id = `msg_${(Date.now() - dueMsAgo).toString(16).padStart(12, '0')}${(++n).toString(16).padStart(20, '0')}`;
  const payload = JSON.stringify({ type: 'Label Created', timestamp: due, data: { company_slug: workspace } });
  const delivery: DeliveryRecord = {
    id,
    webhook_id: webhook,
    workspace,
    event_type: 'Label Created',
    event_id: `evt-${id}`,
    payload,
    status: 'pending',
    attempts: 1,
    auto_attempts: 1,
    next_attempt_at: due,
    created_at: due,
    ...extra,
  };
  // A finished delivery has no schedule (it is out of the due index).
  if (delivery.status !== 'pending') delete delivery.next_attempt_at;
  await putNewDelivery(delivery);
  return delivery;
}

const eventOf = (workspace: string, eventId: string) => ({
  'detail-type': 'Label Created',
  source: EVENT_SOURCE,
  detail: { event_id: eventId, company_slug: workspace, occurred_at: new Date().toISOString(), actor: null, data: { id: 1, slug: 'l' } },
});

describe('the sweeper', () => {
  test('a delivery whose message was lost is queued again by a sweep, once among two sweeps at once, and then delivered', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/lost');
    const lost = await lostDelivery(workspace, id, LOST_AFTER_MS + 60_000);
    const { queue, retries } = keptQueue();
    const [a, b] = await Promise.all([
      consumeWebhookMessages([record({ kind: 'sweep' })], queue),
      consumeWebhookMessages([record({ kind: 'sweep' })], queue),
    ]);
    expect(a.tally.requeued + b.tally.requeued).toBe(1);
    expect(retries).toEqual([{ message: expect.objectContaining({ delivery_id: lost.id, kind: 'attempt' }), delayMs: 0 }]);
    const out = await consumeWebhookMessages([record(retries[0]!.message)], queue);
    expect(out.tally.delivered).toBe(1);
    expect(receiver.received('/lost')).toHaveLength(1);
    expect(await readDelivery(workspace, id, lost.id)).toMatchObject({ status: 'delivered', attempts: 2, auto_attempts: 2 });
    // Delivered, it has left the due index: the next sweep finds nothing.
    expect(await sweepDeliveries(queue)).toEqual({ found: 0, requeued: 0, ended: 0, more: false });
  });

  test('it leaves a delivery due recently (its message on its way), one an attempt holds, and finished ones', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/left');
    const recent = await lostDelivery(workspace, id, LOST_AFTER_MS - 60_000);
    const held = await lostDelivery(workspace, id, LOST_AFTER_MS + 60_000);
    const until = new Date(Date.now() + 60_000).toISOString();
    expect(await claimDelivery(held, held.next_attempt_at!, new Date().toISOString(), until)).toBe(true);
    await lostDelivery(workspace, id, LOST_AFTER_MS + 60_000, { status: 'failed' });
    await lostDelivery(workspace, id, LOST_AFTER_MS + 60_000, { status: 'delivered' });
    const { queue, retries } = keptQueue();
    const sweep = await sweepDeliveries(queue);
    expect(sweep).toEqual({ found: 1, requeued: 0, ended: 0, more: false });
    expect(retries).toEqual([]);
    // The one that is held stays as it was: the holder's own message records it.
    expect(await readDelivery(workspace, id, held.id)).toMatchObject({ status: 'pending', next_attempt_at: held.next_attempt_at });
    expect(await readDelivery(workspace, id, recent.id)).toMatchObject({ next_attempt_at: recent.next_attempt_at });
  });

  test('a lost delivery of a webhook since deleted or turned off is ended by its attempt, not sent', async () => {
    const workspace = ws();
    const off = await webhookTo(workspace, '/off', { active: false });
    const turnedOff = await lostDelivery(workspace, off, LOST_AFTER_MS + 60_000);
    const deleted = await lostDelivery(workspace, webhookId(), LOST_AFTER_MS + 60_000);
    const { queue, retries } = keptQueue();
    expect((await sweepDeliveries(queue)).requeued).toBe(2);
    await consumeWebhookMessages(
      retries.map((r) => record(r.message)),
      queue,
    );
    expect(await readDelivery(workspace, off, turnedOff.id)).toMatchObject({
      status: 'failed',
      last_error: 'Not sent: the webhook is turned off.',
    });
    expect(await readDelivery(workspace, deleted.webhook_id, deleted.id)).toMatchObject({
      status: 'failed',
      last_error: 'Not sent: the webhook was deleted.',
    });
    expect(receiver.received('/off')).toEqual([]);
  });
});

describe('a delivery lost again and again', () => {
  test('is queued again by at most 3 sweeps, then ended failed and described on the dead-letter queue', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/lost-again');
    const lost = await lostDelivery(workspace, id, LOST_AFTER_MS + 60_000, { requeues: MAX_SWEEPS - 1 });
    const deadLetters: string[] = [];
    const { queue, retries } = keptQueue();
    const lane = { ...queue, deadLetter: async (_body: string, reason: string) => void deadLetters.push(reason) };
    // The last re-queue it gets: its attempt then fails before recording (its message lost again).
    expect(await sweepDeliveries(lane)).toMatchObject({ requeued: 1, ended: 0 });
    expect(retries).toHaveLength(1);
    const stillLost = { ...lost, requeues: MAX_SWEEPS, next_attempt_at: retries[0]!.message.due_at };
    expect(await readDelivery(workspace, id, lost.id)).toMatchObject({ status: 'pending', requeues: MAX_SWEEPS });
    // An hour on, the next sweep ends it (and queues again the other tests' deliveries lost by then).
    const later = await sweepDeliveries(lane, { now: Date.parse(stillLost.next_attempt_at) + LOST_AFTER_MS + 60_000 });
    expect(later.ended).toBe(1);
    expect(await readDelivery(workspace, id, lost.id)).toMatchObject({
      status: 'failed',
      last_error: expect.stringMatching(/^Lost 4 times/),
    });
    expect(deadLetters).toEqual([expect.stringMatching(/^Lost 4 times/)]);
    expect(retries.filter((r) => r.message.delivery_id === lost.id)).toHaveLength(1);
    expect(receiver.received('/lost-again')).toEqual([]);
  });
});

describe('a batch', () => {
  test("one webhook's part failing neither cuts short another's send nor its record: the message comes again, the other is not sent twice", async () => {
    const workspace = ws();
    const broken = await webhookTo(workspace, '/broken');
    const slow = await webhookTo(workspace, '/slow');
    let failed!: () => void;
    const brokenFailed = new Promise<void>((resolve) => (failed = resolve));
    // The slow endpoint answers only once the other webhook's part has failed: its send is in flight then.
    receiver.answer('/slow', () => brokenFailed.then(() => 200));
    plant = (command, input) => {
      if (command !== 'PutItemCommand' || !input.includes(broken)) return undefined;
      failed();
      return 'fail';
    };
    const { queue } = keptQueue();
    const event = record(eventOf(workspace, 'evt-partly'));
    const out = await consumeWebhookMessages([event], queue);
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: event.messageId }]);
    // When the batch answered, the other's send had been recorded.
    const [slowDelivery] = receiver.received('/slow');
    expect(await readDelivery(workspace, slow, String(slowDelivery!.headers['webhook-id']))).toMatchObject({ status: 'delivered' });
    plant = () => undefined;
    const again = await consumeWebhookMessages([event], queue);
    expect(again.tally).toMatchObject({ delivered: 1, skipped: 1 });
    expect(receiver.received('/slow')).toHaveLength(1);
    expect(receiver.received('/broken')).toHaveLength(1);
  });
});

describe('the record of a sent attempt', () => {
  const recordOf = (delivery: string) => (command: string, input: string) =>
    command === 'UpdateItemCommand' && input.includes(delivery) && input.includes('last_attempt_at');

  test('is written again while the table refuses it, and counts the attempt once', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/refused');
    const lost = await lostDelivery(workspace, id, 0);
    let refusals = 0;
    plant = (command, input) => (recordOf(lost.id)(command, input) && refusals++ < 3 ? 'fail' : undefined);
    const { queue } = keptQueue();
    const out = await consumeWebhookMessages(
      [record({ kind: 'attempt', workspace, webhook_id: id, delivery_id: lost.id, due_at: lost.next_attempt_at })],
      queue,
    );
    expect(out).toMatchObject({ batchItemFailures: [], tally: { delivered: 1 } });
    expect(refusals).toBe(4);
    expect(receiver.received('/refused')).toHaveLength(1);
    expect(await readDelivery(workspace, id, lost.id)).toMatchObject({ status: 'delivered', attempts: 2, auto_attempts: 2 });
  });

  test('written once when its answer was lost and the write repeated', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/lost-answer');
    const lost = await lostDelivery(workspace, id, 0);
    let calls = 0;
    plant = (command, input) => (recordOf(lost.id)(command, input) && calls++ === 0 ? 'lose-answer' : undefined);
    const { queue } = keptQueue();
    const out = await consumeWebhookMessages(
      [record({ kind: 'attempt', workspace, webhook_id: id, delivery_id: lost.id, due_at: lost.next_attempt_at })],
      queue,
    );
    expect(out.tally.delivered).toBe(1);
    expect(calls).toBe(2);
    expect(await readDelivery(workspace, id, lost.id)).toMatchObject({ status: 'delivered', attempts: 2, auto_attempts: 2 });
  });
});

describe("a failing endpoint's health", () => {
  /** Each failure as an attempt makes it: with the webhook as read (by default, just before). */
  const failAs = (workspace: string, id: string, fresh: string) => async (when: string, shown?: WebhookRecord) =>
    webhookHealth.failing(shown ?? (await readWebhook(workspace, id))!, when, fresh);

  test("is written off the workspace's key: the webhook item as the run starts and as it ends, the health item at most once a minute", async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/down');
    const writes: string[] = [];
    observe = (command, input) => {
      if (!/^(Put|Update)ItemCommand$/.test(command) || !input.includes(id)) return;
      if (input.includes('"HEALTH"')) writes.push('health');
      else if (input.includes(keys.webhookCollection(workspace))) writes.push('webhook');
    };
    const start = Date.now();
    const at = (ms: number) => new Date(start + ms).toISOString();
    const fail = failAs(workspace, id, at(-3600_000));
    // Ten failures at once (each read the webhook healthy) start one run: each answers its start, and the
    // webhook and the health item are each written once.
    const healthy = (await readWebhook(workspace, id))!;
    const starts = await Promise.all(Array.from({ length: 10 }, (_, i) => fail(at(i), healthy)));
    expect(new Set(starts).size).toBe(1);
    const since = starts[0]!;
    expect(Date.parse(since) - start).toBeLessThan(10);
    expect(writes.sort()).toEqual(['health', 'webhook']);
    // The webhook shows the run as one of those failures started it.
    expect(Date.parse((await readWebhook(workspace, id))!.failing_since!) - start).toBeLessThan(10);
    // Ten more in the run's first minute write nothing; so does a late one of the first moment, which read the
    // webhook before the run began (it joins the run rather than start its own over it).
    writes.length = 0;
    expect(await fail(at(500), healthy)).toBe(since);
    for (let i = 1; i <= 10; i++) expect(await fail(at(i * 1000))).toBe(since);
    expect(writes).toEqual([]);
    // A minute on, one more write of the health item; none of the webhook's.
    await fail(at(HEALTH_QUIET_MS + 20_000));
    await fail(at(HEALTH_QUIET_MS + 21_000));
    expect(writes).toEqual(['health']);
    writes.length = 0;
    await webhookHealth.healthy(workspace, id, new Date().toISOString());
    expect(writes).toEqual(['health', 'webhook']);
    expect((await readWebhook(workspace, id))?.failing_since).toBeUndefined();
  });

  test('a webhook turned on again, or ended by a success meanwhile, starts a new run at its next failure', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/flaky');
    const start = Date.now() - 3600_000;
    const at = (ms: number) => new Date(start + ms).toISOString();
    const fail = failAs(workspace, id, at(-3600_000));
    expect(await fail(at(0))).toBe(at(0));
    // The webhook shows no run (turned off and on again: failing_since removed), its health still keeps one.
    await db.send(
      new UpdateCommand({ TableName: tableName(), Key: keys.webhook(workspace, id), UpdateExpression: 'REMOVE failing_since' }),
    );
    expect(await fail(at(2 * HEALTH_QUIET_MS))).toBe(at(2 * HEALTH_QUIET_MS));
    expect((await readWebhook(workspace, id))?.failing_since).toBe(at(2 * HEALTH_QUIET_MS));
  });

  test('turns the webhook off once it has failed for the deactivation time, even when two instances started the run moments apart', async () => {
    const workspace = ws();
    const id = await webhookTo(workspace, '/gone-for-good');
    process.env.WEBHOOKS_DEACTIVATE_AFTER = '1m';
    try {
      const healthy = (await readWebhook(workspace, id))!;
      receiver.answer('/gone-for-good', () => 500);
      const start = Date.now() - 90_000;
      const at = (ms: number) => new Date(start + ms).toISOString();
      const fail = failAs(workspace, id, at(-3600_000));
      // Two instances start the run moments apart: the webhook and its health may keep different starts.
      await Promise.all([fail(at(0), healthy), fail(at(5), healthy)]);
      // An attempt due now finds the breaker open (the endpoint failed for longer than twice the first
      // wait): the delivery parks and the breaker's probe is armed, due in the first wait (10 ms here).
      process.env.WEBHOOKS_RETRY_SCHEDULE = '10ms,10ms,10ms';
      const { queue, retries } = keptQueue();
      const lost = await lostDelivery(workspace, id, 0);
      const parked = await consumeWebhookMessages(
        [record({ kind: 'attempt', workspace, webhook_id: id, delivery_id: lost.id, due_at: lost.next_attempt_at })],
        queue,
      );
      expect(parked.tally).toMatchObject({ parked: 1 });
      const probe = retries.map((r) => r.message as unknown as ProbeMessage).find((m) => m.kind === 'probe')!;
      while (Date.parse(probe.due_at) > Date.now()) await new Promise((r) => setTimeout(r, 5));
      // The probe, a failed attempt as the deliverer makes it: the webhook is turned off, saying why.
      expect((await consumeWebhookMessages([record(probe)], queue)).tally).toMatchObject({ retrying: 1 });
      expect(await readWebhook(workspace, id)).toMatchObject({
        active: false,
        deactivated_reason: expect.stringMatching(/^Every delivery failed from /),
      });
    } finally {
      delete process.env.WEBHOOKS_DEACTIVATE_AFTER;
      delete process.env.WEBHOOKS_RETRY_SCHEDULE;
    }
  });
});
