import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, test } from 'vitest';
import type { OutboundEvent } from '#events/outbound';
import type { LocalLog } from '#local/localLog';
import { type LocalWebhooks, startLocalWebhooks } from '#local/webhookQueue';
import type { consumeWebhookMessages } from '#webhooks/consumer';

/**
 * The local stand-in for the deliveries queue (lib/local/webhookQueue.ts) with a consumer of the test's
 * own: how it hands messages on (batches of at most ten, as the deployed event sources do; a lane's cap
 * counted in messages), and what comes again (only the failed messages of a batch, each with its
 * receive count, and after the fifth receive the dead-letter file).
 */
const dir = mkdtempSync(join(tmpdir(), 'pls-local-queue-'));
const deadLetterFile = join(dir, 'dead-letters.jsonl');
let running: LocalWebhooks | undefined;
afterEach(async () => {
  await running?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const eventNumbered = (n: number) =>
  ({
    detailType: 'Label Created',
    time: new Date().toISOString(),
    detail: { event_id: `evt-${n}`, company_slug: 'acme-corp', occurred_at: new Date().toISOString() },
  }) as unknown as OutboundEvent;
const eventIdOf = (record: SQSRecord) => (JSON.parse(record.body) as { detail: { event_id: string } }).detail.event_id;

type Consumer = (records: SQSRecord[]) => Promise<SQSBatchResponse> | SQSBatchResponse;

/** The stand-in with `consumer`, and every batch it was handed (event ids and receive counts), with how many messages were in hand at most. */
function startWith(consumer: Consumer, caps?: { fresh: number; retry: number }, deadLetters = deadLetterFile, log: LocalLog = () => {}) {
  const batches: { ids: string[]; receives: string[] }[] = [];
  let inHand = 0;
  let mostInHand = 0;
  const consume = (async (records: SQSRecord[]) => {
    batches.push({ ids: records.map(eventIdOf), receives: records.map((r) => r.attributes.ApproximateReceiveCount) });
    inHand += records.length;
    mostInHand = Math.max(mostInHand, inHand);
    try {
      return await consumer(records);
    } finally {
      inHand -= records.length;
    }
  }) as unknown as typeof consumeWebhookMessages;
  running = startLocalWebhooks({ consume, deadLetterFile: deadLetters, log, ...(caps ? { caps } : {}) });
  return { queue: running, batches, mostInHand: () => mostInHand };
}

/** Resolves once `count` messages have been handled. */
async function handled(queue: LocalWebhooks, count: number): Promise<void> {
  while (queue.stats.handled < count) await new Promise((go) => setImmediate(go));
}

describe('the local deliveries queue', () => {
  test('hands the messages visible at once on in batches of at most ten, oldest first, each received once', async () => {
    const { queue, batches } = startWith(() => ({ batchItemFailures: [] }));
    await queue.bus.publish(Array.from({ length: 25 }, (_, i) => eventNumbered(i)));
    await handled(queue, 25);
    expect(batches.map((b) => b.ids.length)).toEqual([10, 10, 5]);
    expect(batches.flatMap((b) => b.ids)).toEqual(Array.from({ length: 25 }, (_, i) => `evt-${i}`));
    expect(batches.flatMap((b) => b.receives)).toEqual(Array(25).fill('1'));
    expect(queue.stats).toMatchObject({ queued: 25, handled: 25, deadLettered: 0 });
  });

  test("a lane's cap counts messages: a batch is no larger than the room left, and no more are in hand than the cap", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((go) => (release = go));
    const { queue, batches, mostInHand } = startWith(
      async () => {
        await held;
        return { batchItemFailures: [] };
      },
      { fresh: 4, retry: 1 },
    );
    await queue.bus.publish(Array.from({ length: 9 }, (_, i) => eventNumbered(i)));
    while (batches.length < 1) await new Promise((go) => setImmediate(go));
    expect(batches.map((b) => b.ids.length)).toEqual([4]);
    release();
    await handled(queue, 9);
    expect(batches.map((b) => b.ids.length)).toEqual([4, 4, 1]);
    expect(mostInHand()).toBe(4);
  });

  test('a cap that is not a whole number is rounded down, and every message is still handed on', async () => {
    const { queue, batches, mostInHand } = startWith(() => ({ batchItemFailures: [] }), { fresh: 2.5, retry: 1 });
    await queue.bus.publish(Array.from({ length: 5 }, (_, i) => eventNumbered(i)));
    await handled(queue, 5);
    expect(batches.map((b) => b.ids.length)).toEqual([2, 2, 1]);
    expect(mostInHand()).toBe(2);
  });

  test('only the failed messages of a batch come again, with their receive count; the fifth failure is dead-lettered', async () => {
    const { queue, batches } = startWith((records) => ({
      batchItemFailures: records.filter((r) => eventIdOf(r) === 'evt-1').map((r) => ({ itemIdentifier: r.messageId })),
    }));
    await queue.bus.publish([0, 1, 2].map(eventNumbered));
    while (queue.stats.deadLettered < 1) await new Promise((go) => setTimeout(go, 20));
    expect(batches).toEqual([
      { ids: ['evt-0', 'evt-1', 'evt-2'], receives: ['1', '1', '1'] },
      ...[2, 3, 4, 5].map((n) => ({ ids: ['evt-1'], receives: [String(n)] })),
    ]);
    const [line] = readFileSync(deadLetterFile, 'utf8').trim().split('\n');
    expect(JSON.parse(line!)).toMatchObject({ reason: 'failed 5 deliveries' });
    expect(eventIdOf({ body: JSON.parse(line!).body } as SQSRecord)).toBe('evt-1');
  });

  test('a dead letter that cannot be written is logged with its message, and nothing is left unhandled', async () => {
    const notAFolder = join(dir, 'a-file');
    mkdirSync(dir, { recursive: true });
    writeFileSync(notAFolder, '');
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const { queue } = startWith(
      (records) => ({ batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })) }),
      undefined,
      join(notAFolder, 'dead-letters.jsonl'),
      (level, message, fields) => void lines.push({ level, message, fields }),
    );
    await queue.bus.publish([eventNumbered(7)]);
    while (!lines.some((l) => l.level === 'error')) await new Promise((go) => setTimeout(go, 20));
    const lost = lines.find((l) => l.level === 'error')!;
    expect(lost.message).toBe('dead letter not written: the message is lost');
    expect(eventIdOf({ body: lost.fields.body } as SQSRecord)).toBe('evt-7');
    expect(queue.stats).toMatchObject({ handled: 5, deadLettered: 0 });
  });

  test('a consumer that throws returns its whole batch to the queue', async () => {
    let calls = 0;
    const { queue, batches } = startWith(() => {
      if (++calls === 1) throw new Error('the database is busy');
      return { batchItemFailures: [] };
    });
    await queue.bus.publish([0, 1].map(eventNumbered));
    await handled(queue, 4);
    expect(batches[0]).toEqual({ ids: ['evt-0', 'evt-1'], receives: ['1', '1'] });
    // Each comes again once, received a second time (their two retry timers may fire in one turn or two).
    const again = batches.slice(1).flatMap((b) => b.ids.map((id, i) => `${id} ${b.receives[i]}`));
    expect(again.sort()).toEqual(['evt-0 2', 'evt-1 2']);
  });
});
