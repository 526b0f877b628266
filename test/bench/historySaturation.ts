import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { modelRow } from '#lib/capacity/model';
import { installRecorder, recorded } from '#lib/capacity/recorder';
import { PartitionBuckets } from '#local/partitions/buckets';
import { sideReader } from '#local/partitions/images';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import type { NewEntry } from '#store/activityLayout';
import { appendActivity } from '#store/activityLog';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { log } from './stats.ts';

/**
 * Section 6, the history's keys: how many entries a second one task of one project takes, written as the stream
 * processor writes them (appendActivity, a batch a transaction), in process against the bench's DynamoDB Local
 * through the partition simulator at 1/SCALE of DynamoDB's limits. Measured twice: in a workspace written in the
 * layout of before (inside the 15 minutes after this version first writes it: activityLayout.ts, the workspace's 4
 * shards, one partition per copy), and in one written spread (8, 8 per project, 4 per task). The spread one is
 * compared with the capacity model's prediction for the same work: one batch recorded and modelled as
 * docs/capacity.md's rows are, its first key's rate times the entries of a batch. No request refuses here (the
 * history is written by the stream processor): a refusal is a throttled write, retried by the store, and the
 * measured rate is the entries recorded a second once the burst is spent.
 */
const SCALE = 100;
const LIMITS = { rcu: 3_000 / SCALE, wcu: 1_000 / SCALE, burstSeconds: 1, split: 1 };
/** Entries a batch: a stream batch of a busy task (its attaches and detaches). */
const BATCH = 10;
const SETTLE_S = 2;
const RETENTION_MS = 86_400_000;

interface LayoutRun {
  entries: number;
  seconds: number;
  perSecond: number;
  /** Writes the simulator refused (throttled), each retried. */
  throttled: number;
}

export interface HistorySaturation {
  limits: string;
  scale: number;
  batch: number;
  settleS: number;
  /** The model's first key for the spread layout's batch, and its rate in entries a second at DynamoDB's limits. */
  firstKey: string;
  modelled: number;
  predicted: number;
  before: LayoutRun;
  spread: LayoutRun;
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

/** A workspace this version began writing just now: its history is written in the layout of before for 15 minutes. */
async function writtenAsBefore(ws: string): Promise<void> {
  await appendActivity(entriesOf(ws, 1), RETENTION_MS);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.activitySequence(ws),
      UpdateExpression: 'SET sharded_since = :now',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
}

/** Batches back to back for `seconds`; the entries recorded a second after the first SETTLE_S (the bucket's burst). */
async function run(ws: string, seconds: number, throttles: { count: number }): Promise<LayoutRun> {
  const started = performance.now();
  let counted = 0;
  let from = 0;
  throttles.count = 0;
  while (performance.now() - started < seconds * 1000) {
    const written = await appendActivity(entriesOf(ws, BATCH), RETENTION_MS).catch(() => 0);
    const at = (performance.now() - started) / 1000;
    if (at < SETTLE_S) from = at;
    else counted += written;
  }
  const measuredS = (performance.now() - started) / 1000 - from;
  return { entries: counted, seconds: measuredS, perSecond: counted / measuredS, throttled: throttles.count };
}

export async function measureHistorySaturation(seconds: number): Promise<HistorySaturation> {
  installRecorder();
  // The model's prediction: one spread batch, recorded without the simulator, modelled as a route's row is.
  const probe = workspace('history-model');
  await appendActivity(entriesOf(probe, 1), RETENTION_MS);
  const calls = await recorded(() => appendActivity(entriesOf(probe, BATCH), RETENTION_MS));
  const row = modelRow({ row: 'history batch', scenario: '', consumer: true, request: calls, stream: [], records: 0, events: 0 });
  const modelled = row.first.rate * BATCH;
  const throttles = { count: 0 };
  const buckets = new PartitionBuckets(LIMITS);
  const counting = buckets.emptyAmong.bind(buckets);
  buckets.emptyAmong = (draws) => {
    const empty = counting(draws);
    if (empty) throttles.count++;
    return empty;
  };
  db.middlewareStack.add(partitionSimulator(buckets, sideReader()), SIMULATOR_MIDDLEWARE);
  try {
    const old = workspace('history-before');
    await writtenAsBefore(old);
    const before = await run(old, seconds, throttles);
    log(`history, the layout of before: ${before.perSecond.toFixed(1)} entries/s (${before.throttled} writes throttled)`);
    const fresh = workspace('history-spread');
    const spread = await run(fresh, seconds, throttles);
    log(`history, spread: ${spread.perSecond.toFixed(1)} entries/s (${spread.throttled} writes throttled)`);
    return {
      limits: `rcu=${LIMITS.rcu},wcu=${LIMITS.wcu},burst=${LIMITS.burstSeconds}`,
      scale: SCALE,
      batch: BATCH,
      settleS: SETTLE_S,
      firstKey: row.first.partition,
      modelled,
      predicted: modelled / SCALE,
      before,
      spread,
    };
  } finally {
    db.middlewareStack.remove(SIMULATOR_MIDDLEWARE.name);
  }
}
