import { randomBytes } from 'node:crypto';
import { modelRow } from '#lib/capacity/model';
import { installRecorder, recorded } from '#lib/capacity/recorder';
import { PartitionBuckets } from '#local/partitions/buckets';
import { sideReader } from '#local/partitions/images';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import type { NewEntry } from '#store/activityLayout';
import { historySpread } from '#lib/capacity/spread';
import { appendActivity } from '#store/activityLog';
import { db } from '#store/client';
import { log } from './stats.ts';

/**
 * Section 6, the history's keys: whether one task of one project takes its entries at the rate the capacity model gives,
 * written as the stream processor writes them (appendActivity, a batch a transaction), in process against the bench's
 * DynamoDB Local through the partition simulator at 1/SCALE of DynamoDB's limits. The history is written by the stream
 * processor, not by a request: nothing answers 503; a refusal is a throttled write (retried by the store). So batches
 * are paced at a share of the model's rate for the same batch (recorded and modelled as docs/capacity.md's rows are: its
 * first key's rate times the entries of a batch), and the simulator's refusals counted: none at 80% of it and some at
 * 120% is the model within 20%. Measured spread (a workspace this version has written for more than 15 minutes: the
 * workspace's 8 shards, 8 a project, 4 a task), and in the layout of before at 80% (a workspace this version began to
 * write a moment ago, inside its first 15 minutes, as during a deploy: activityLayout.ts; 4 shards, one partition a copy).
 */
const SCALE = 100;
const LIMITS = { rcu: 3_000 / SCALE, wcu: 1_000 / SCALE, burstSeconds: 1, split: 1 };
/** Entries a batch: a stream batch of a busy task (its attaches and detaches). */
const BATCH = 10;
/** The steps, as shares of the model's rate. */
const STEPS = [0.8, 1.2];
const RETENTION_MS = 86_400_000;

interface Step {
  layout: 'before' | 'spread';
  /** The share of the model's rate offered, and that rate here (entries a second). */
  share: number;
  offered: number;
  /** Entries recorded a second. */
  recorded: number;
  /** Writes the simulator refused (throttled), each retried. */
  throttled: number;
}

export interface HistorySaturation {
  limits: string;
  scale: number;
  batch: number;
  /** The model's first key for the spread layout's batch, and its rate in entries a second at DynamoDB's limits and here. */
  firstKey: string;
  modelled: number;
  predicted: number;
  steps: Step[];
}

/** A workspace of its own (its history is all this section writes). */
const workspace = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

let n = 0;
function entriesOf(ws: string, count: number): NewEntry[] {
  return Array.from({ length: count }, () => {
    n++;
    return {
      id: `act_${String(n).padStart(24, '0')}`,
      type: 'Label Attached',
      occurred_at: new Date().toISOString(),
      actor: { username: 'bench' },
      company_slug: ws,
      project_slug: 'hot',
      project_id: 'prj_hot',
      project: null,
      label: { id: 1, slug: 'bug' },
      task_uuid: 'task-hot',
      changes: [],
      event_id: `evt-bench-${process.pid}-${n}`,
      request_id: null,
      idempotency_key: null,
    };
  });
}

/** Batches paced at `rate` entries a second for `seconds` (a late batch is not made up for): entries recorded a second, and writes refused. */
async function run(ws: string, rate: number, seconds: number, throttles: { count: number }) {
  const started = performance.now();
  const gapMs = (1000 * BATCH) / rate;
  let recorded = 0;
  throttles.count = 0;
  // The first batch one gap in: the buckets, empty at the start, hold one gap's units by then.
  for (let next = started + gapMs; performance.now() - started < seconds * 1000; next += gapMs) {
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    recorded += await appendActivity(entriesOf(ws, BATCH), RETENTION_MS).catch(() => 0);
  }
  return { recorded: recorded / ((performance.now() - started) / 1000), throttled: throttles.count };
}

export async function measureHistorySaturation(seconds: number): Promise<HistorySaturation> {
  installRecorder();
  // The model's prediction: one spread batch, recorded without the simulator, modelled as a route's row is.
  const probe = workspace('history-model');
  await historySpread(probe);
  await appendActivity(entriesOf(probe, 1), RETENTION_MS);
  const calls = await recorded(() => appendActivity(entriesOf(probe, BATCH), RETENTION_MS));
  const row = modelRow({ row: 'history batch', scenario: '', consumer: true, request: calls, stream: [], records: 0, events: 0 });
  const modelled = row.first.rate * BATCH;
  const predicted = modelled / SCALE;
  const throttles = { count: 0 };
  const buckets = new PartitionBuckets(LIMITS);
  const counting = buckets.emptyAmong.bind(buckets);
  buckets.emptyAmong = (draws) => {
    const empty = counting(draws);
    if (empty) throttles.count++;
    return empty;
  };
  db.middlewareStack.add(partitionSimulator(buckets, sideReader()), SIMULATOR_MIDDLEWARE);
  const steps: Step[] = [];
  const measure = async (layout: Step['layout'], share: number, ws: string) => {
    // The buckets empty as the step begins: judged on the key's rate alone, not on a second of burst.
    buckets.emptyFrom();
    const step = { layout, share, offered: share * predicted, ...(await run(ws, share * predicted, seconds, throttles)) };
    log(
      `history, ${layout} at ${share}x: ${step.recorded.toFixed(1)} entries/s of ${step.offered.toFixed(1)} (${step.throttled} writes throttled)`,
    );
    steps.push(step);
  };
  try {
    for (const share of STEPS) {
      const ws = workspace('history-spread');
      await historySpread(ws);
      await measure('spread', share, ws);
    }
    // Begun a moment ago: written as before for its first 15 minutes.
    const before = workspace('history-before');
    await historySpread(before, new Date().toISOString());
    await measure('before', STEPS[0]!, before);
    return {
      limits: `rcu=${LIMITS.rcu},wcu=${LIMITS.wcu},burst=${LIMITS.burstSeconds}`,
      scale: SCALE,
      batch: BATCH,
      firstKey: row.first.partition,
      modelled,
      predicted,
      steps,
    };
  } finally {
    db.middlewareStack.remove(SIMULATOR_MIDDLEWARE.name);
  }
}
