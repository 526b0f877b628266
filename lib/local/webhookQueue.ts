import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import type { EventBus } from '#events/bus';
import type { consumeWebhookMessages } from '#webhooks/consumer';
import { useLocalRetryLane, type WebhookQueue } from '#webhooks/queue';
import { SWEEP_EVERY_MS } from '#webhooks/settings';
import { writeDeadLetter } from './deadLetterFile.ts';
import { busEnvelope } from './eventFile.ts';
import { localLog, type LocalLog } from './localLog';

/**
 * The local stand-in for the deployed webhook path (EventBridge rule -> SQS deliveries queue ->
 * deliverer Lambda), in-process, behind the interfaces the Lambda handler uses: every event the local
 * bus publishes is queued, and the messages visible at one moment (timers, no polling) are handed to
 * `consumeWebhookMessages` in batches of up to ten, as the deployed event sources hand them, many
 * batches at once, so one slow endpoint holds up no other batch. Two lanes, as
 * deployed: the bus's events on the fresh lane, the deliverer's own messages (retries, hops, sweeps) on
 * the retry lane, each with its own cap on messages handled at once (none unless given: the bench gives
 * the deployed caps, scaled, to see one lane's load held off the other; a batch takes a place for each
 * of its messages, and holds them until its last is done). A message
 * reported failed comes again after a short wait, at most MAX_RECEIVES times, then goes to the
 * dead-letter file, where the deliverer's own dead letters (malformed messages, deliveries a sweep found
 * lost a fourth time) go too. Every few minutes it queues a sweep, as the deployed schedule does.
 */
const MAX_RECEIVES = 5;
/** The deployed event sources' batchSize (lib/cdk/webhooks.ts). */
const BATCH_SIZE = 10;

export interface LocalWebhooks {
  /** The rule's side of the bus: every published event onto the queue. */
  bus: EventBus;
  stats: { queued: number; handled: number; deadLettered: number };
  stop(): Promise<void>;
}

/** The deployed lanes: the bus rule's queue of fresh events, and the deliverer's retry lane. */
type Lane = 'fresh' | 'retry';
/** A message visible on its lane, and how many times it will have been received once handed on. */
type Visible = { body: string; receives: number };

export function startLocalWebhooks(opts: {
  consume: typeof consumeWebhookMessages;
  deadLetterFile: string;
  log?: LocalLog;
  /**
   * Messages each lane has in hand at once at most. Deployed, an event source's maximum concurrency counts
   * invocations of up to ten messages each: the bench gives caps scaled with that in mind. Whole numbers (rounded down).
   */
  caps?: Record<Lane, number>;
}): LocalWebhooks {
  const stats = { queued: 0, handled: 0, deadLettered: 0 };
  const log = opts.log ?? localLog;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const whole = (cap: number) => Math.max(1, Math.floor(cap));
  const caps = opts.caps
    ? { fresh: whole(opts.caps.fresh), retry: whole(opts.caps.retry) }
    : { fresh: Number.POSITIVE_INFINITY, retry: Number.POSITIVE_INFINITY };
  const newLane = () => ({ busy: 0, visible: [] as Visible[], drainQueued: false });
  const lanes = { fresh: newLane(), retry: newLane() };
  let stopped = false;

  // Counted once written: whoever waits on the count finds the line in the file.
  const deadLetter = async (body: string, reason: string) => {
    await writeDeadLetter(opts.deadLetterFile, body, reason);
    stats.deadLettered++;
    log('warn', 'message dead-lettered', { source: 'webhook-queue', reason });
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
    const visible = () => {
      lanes[lane].visible.push({ body, receives: receives + 1 });
      drainSoon(lane);
    };
    if (delayMs <= 0) return visible();
    const timer = setTimeout(() => {
      timers.delete(timer);
      visible();
    }, delayMs);
    timers.add(timer);
  }

  /** Once this turn's work is done: the messages made visible in it (a publish's events, the timers due) batch together. */
  function drainSoon(name: Lane): void {
    const lane = lanes[name];
    if (lane.drainQueued) return;
    lane.drainQueued = true;
    setImmediate(() => {
      lane.drainQueued = false;
      drain(name);
    });
  }

  /** Hands the visible messages on, oldest first, in batches, while the lane has room for them. */
  function drain(name: Lane): void {
    const lane = lanes[name];
    while (!stopped && lane.visible.length > 0 && lane.busy < caps[name]) {
      const batch = lane.visible.splice(0, Math.min(BATCH_SIZE, caps[name] - lane.busy));
      lane.busy += batch.length;
      const run = receive(name, batch).finally(() => {
        lane.busy -= batch.length;
        running.delete(run);
        drain(name);
      });
      running.add(run);
    }
  }

  async function receive(lane: Lane, batch: Visible[]): Promise<void> {
    const records = batch.map(({ body, receives }) => ({
      messageId: randomUUID(),
      body,
      attributes: { ApproximateReceiveCount: String(receives) },
    })) as unknown as SQSRecord[];
    let failed: Set<string>;
    try {
      failed = new Set((await opts.consume(records, queue)).batchItemFailures.map((f) => f.itemIdentifier));
    } catch (error) {
      log('warn', 'batch returned to the queue', { source: 'webhook-queue', size: batch.length, error });
      failed = new Set(records.map((r) => r.messageId));
    }
    stats.handled += batch.length;
    const again = batch.filter((_, i) => failed.has(records[i]!.messageId));
    // Every failed message queued again first; a dead letter that cannot be written costs only its own message.
    for (const { body, receives } of again) if (receives < MAX_RECEIVES) enqueue(lane, body, 200 * receives, receives);
    const last = again.filter(({ receives }) => receives >= MAX_RECEIVES);
    const written = await Promise.allSettled(last.map(({ body, receives }) => deadLetter(body, `failed ${receives} deliveries`)));
    for (const [i, w] of written.entries())
      if (w.status === 'rejected')
        log('error', 'dead letter not written: the message is lost', { source: 'webhook-queue', error: w.reason, body: last[i]!.body });
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
      for (const lane of Object.values(lanes)) lane.visible.splice(0); // let go: not handled
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
