import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import type { EventBus } from '#events/bus';
import type { consumeWebhookMessages } from '#webhooks/consumer';
import { useLocalRetryLane, type WebhookQueue } from '#webhooks/queue';
import { SWEEP_EVERY_MS } from '#webhooks/settings';
import { busEnvelope } from './eventFile.ts';
import { localLog, type LocalLog } from './localLog';

/**
 * The local stand-in for the deployed webhook path (EventBridge rule -> SQS deliveries queue ->
 * deliverer Lambda), in-process, behind the interfaces the Lambda handler uses: every event the local
 * bus publishes is queued, each message handed to `consumeWebhookMessages` on its own as soon as it is
 * visible (timers, no polling), many at once, so one slow endpoint holds up no other. Two lanes, as
 * deployed: the bus's events on the fresh lane, the deliverer's own messages (retries, hops, sweeps) on
 * the retry lane, each with its own cap on messages handled at once (none unless given: the bench gives
 * the deployed caps, scaled, to see one lane's load held off the other). A message
 * reported failed comes again after a short wait, at most MAX_RECEIVES times, then goes to the
 * dead-letter file, where the deliverer's own dead letters (malformed messages, deliveries a sweep found
 * lost a fourth time) go too. Every few minutes it queues a sweep, as the deployed schedule does.
 */
const MAX_RECEIVES = 5;

export interface LocalWebhooks {
  /** The rule's side of the bus: every published event onto the queue. */
  bus: EventBus;
  stats: { queued: number; handled: number; deadLettered: number };
  stop(): Promise<void>;
}

/** The deployed lanes: the bus rule's queue of fresh events, and the deliverer's retry lane. */
type Lane = 'fresh' | 'retry';

export function startLocalWebhooks(opts: {
  consume: typeof consumeWebhookMessages;
  deadLetterFile: string;
  log?: LocalLog;
  /** Messages each lane handles at once at most (as the deployed event sources' maximum concurrency caps them). */
  caps?: Record<Lane, number>;
}): LocalWebhooks {
  const stats = { queued: 0, handled: 0, deadLettered: 0 };
  const log = opts.log ?? localLog;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const caps = opts.caps ?? { fresh: Number.POSITIVE_INFINITY, retry: Number.POSITIVE_INFINITY };
  const lanes = { fresh: { busy: 0, waiting: [] as (() => void)[] }, retry: { busy: 0, waiting: [] as (() => void)[] } };
  let stopped = false;

  const deadLetter = async (body: string, reason: string) => {
    stats.deadLettered++;
    log('warn', 'message dead-lettered', { source: 'webhook-queue', reason });
    await mkdir(dirname(opts.deadLetterFile), { recursive: true });
    await appendFile(opts.deadLetterFile, `${JSON.stringify({ reason, at: new Date().toISOString(), body })}\n`);
  };

  const queue: WebhookQueue = {
    later: async (message, delayMs) => enqueue('retry', JSON.stringify(message), delayMs, 0),
    deadLetter,
  };
  // Routes that queue attempts themselves (a recovery) reach this lane, as deployed they reach the retry queue.
  useLocalRetryLane(queue);
  // The sweeper's schedule, as deployed: a sweep message every few minutes (webhooks/sweeper.ts).
  const sweeps = setInterval(() => enqueue('retry', JSON.stringify({ kind: 'sweep' }), 0, 0), SWEEP_EVERY_MS).unref();

  function enqueue(lane: Lane, body: string, delayMs: number, receives: number): void {
    if (stopped) return;
    stats.queued++;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = inTurn(lane, () => receive(lane, body, receives + 1)).finally(() => running.delete(run));
      running.add(run);
    }, delayMs);
    timers.add(timer);
  }

  /** Runs `handle` once its lane has room (visible messages wait their turn, oldest first). */
  async function inTurn(name: Lane, handle: () => Promise<void>): Promise<void> {
    const lane = lanes[name];
    if (lane.busy >= caps[name]) await new Promise<void>((go) => lane.waiting.push(go));
    if (stopped) return; // let go by stop(): not handled
    lane.busy++;
    try {
      await handle();
    } finally {
      lane.busy--;
      lane.waiting.shift()?.();
    }
  }

  async function receive(lane: Lane, body: string, receives: number): Promise<void> {
    const messageId = randomUUID();
    const record = { messageId, body, attributes: { ApproximateReceiveCount: String(receives) } } as unknown as SQSRecord;
    let failed: boolean;
    try {
      failed = (await opts.consume([record], queue)).batchItemFailures.length > 0;
    } catch (error) {
      log('warn', 'batch returned to the queue', { source: 'webhook-queue', size: 1, error });
      failed = true;
    }
    stats.handled++;
    if (!failed) return;
    if (receives >= MAX_RECEIVES) await deadLetter(body, `failed ${receives} deliveries`);
    else enqueue(lane, body, 200 * receives, receives);
  }

  return {
    bus: {
      async publish(events) {
        for (const e of events) enqueue('fresh', JSON.stringify(busEnvelope(e)), 0, 0);
      },
    },
    stats,
    stop: async () => {
      stopped = true;
      clearInterval(sweeps);
      useLocalRetryLane(undefined);
      for (const timer of timers) clearTimeout(timer);
      for (const lane of Object.values(lanes)) for (const go of lane.waiting.splice(0)) go();
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * A retry lane that only keeps what it is given, one JSON line per message in `file`: for a function
 * run on its own (npm run invoke), where no deliverer runs to take the messages.
 */
export function fileRetryLane(file: string): WebhookQueue {
  const keep = async (line: unknown) => {
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${JSON.stringify(line)}\n`);
  };
  return {
    later: (message, delayMs) => keep({ message, delay_ms: delayMs }),
    deadLetter: (body, reason) => keep({ dead_letter: body, reason }),
  };
}
