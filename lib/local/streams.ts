import { existsSync, readFileSync } from 'node:fs';
import { DescribeStreamCommand, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { localLog, type LocalLog } from './localLog';
import { batchDelivery } from './streamDelivery.ts';
import { iteratorAfter, lambdaRecord, replaceFile, streamArnOf, streamsClient } from './streamReads.ts';

/**
 * The local stand-in for Lambda's DynamoDB event source: reads the table's stream on DynamoDB Local
 * shard by shard, in order, and hands each batch to the same code the Lambda handler runs. Failures
 * are handled as the deployed event source mapping does (streamDelivery.ts). With a checkpoint file,
 * a restart resumes after the last batch handled.
 */
export interface StreamRunnerOptions {
  endpoint: string;
  tableName: string;
  handle: (records: DynamoDBRecord[]) => Promise<unknown>;
  /** Where to keep the last sequence number handled per shard (none: start at the oldest record). */
  checkpointFile?: string | undefined;
  /** Records per batch (default LOCAL_BATCH). */
  batchSize?: number;
  /** The records `handle` gets (as an event source mapping's filter: the others are skipped, never delivered). */
  filter?: (record: DynamoDBRecord) => boolean;
  /** Where records that failed every retry are appended, one JSON line each (none: only logged). */
  failureFile?: string | undefined;
  /**
   * Where to note progress: `caughtUpTo`, the start time of the latest read of every shard that found
   * nothing new, so everything written before it has been handled (tests and benchmarks wait on it).
   */
  statusFile?: string | undefined;
  log?: LocalLog;
}

export interface StreamRunner {
  /** Batches handled and records in them since start. */
  stats: { batches: number; records: number; failures: number; deadLettered: number };
  /** Something was written: read the stream now rather than at the end of an idle pause. */
  kick(): void;
  /** Resolves once everything written before the call has been handled (a full read that began after it found nothing new). */
  caughtUp(): Promise<void>;
  /**
   * Stops reading while `move` changes the table it reads (the test suite gives each test file a
   * database of its own), then reads the new table's stream from its start, with clients made anew.
   */
  reset(move: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Pauses between reads that found nothing: short after activity, doubling while the stream stays idle
 * (an idle stream costs DynamoDB Local a read per shard per pause). A write through the local API, or
 * anyone waiting on `caughtUp`, ends a pause at once.
 */
const IDLE_MIN_MS = 20;
/**
 * The shortest time from one round to the next, busy or not: fewer, fuller batches cost DynamoDB Local and the
 * processor less (a batch's counters are summed into one write). Four HTTP-heavy test files (labels, races,
 * concurrency-1, label-links), run in turn with each value: 150 ms took 10-15 % less CPU than 50 ms in two pairs,
 * the same as 100 ms, and less than 250 ms (whose longer waits kept the tests polling); whole runs with three
 * workers (two pairs): 3 % less CPU than 50 ms. Lambda reads a shard four times a second. While a `caughtUp` caller
 * waits, rounds are IDLE_MIN_MS apart: a drain after a write took 407 ms (median of 40) at ROUND_MS, 55 ms so.
 */
const ROUND_MS = 150;
const IDLE_MAX_MS = 640;
/**
 * How often the shard list is read again while nothing forces it. A new shard only follows a closed
 * one (which forces a read), so this is a safety net; but only a round that read the shard list can
 * say "caught up", and `caughtUp` waiters force one.
 */
const DESCRIBE_EVERY_MS = 1_000;
/**
 * GetRecords' maximum: one local shard carries what many shards carry on AWS, so the local runner
 * takes big batches to keep up (the deployed mapping uses 100; the processor is the same for both).
 */
const LOCAL_BATCH = 1_000;
export async function runTableStream(opts: StreamRunnerOptions): Promise<StreamRunner> {
  let streamArn = await streamArnOf(opts.endpoint, opts.tableName);
  let streams = streamsClient(opts.endpoint);
  const log = opts.log ?? localLog;
  const checkpoints: Record<string, string> =
    opts.checkpointFile && existsSync(opts.checkpointFile) ? JSON.parse(readFileSync(opts.checkpointFile, 'utf8')) : {};
  const iterators = new Map<string, string>();
  const closed = new Set<string>();
  const stats = { batches: 0, records: 0, failures: 0, deadLettered: 0 };
  let stopping = false;
  /** The shard list, and whether a closed shard means it must be read again before the next round. */
  let shards: { ShardId?: string; ParentShardId?: string }[] = [];
  let mustDescribe = true;
  let describedAt = 0;
  let idle = IDLE_MIN_MS;
  let rounds = 0;
  let wake: (() => void) | undefined;
  /** Shortens the wait between two rounds to IDLE_MIN_MS: a `caughtUp` caller (someone is blocked on the next rounds); stop() ends it. */
  let hurry: (() => void) | undefined;
  /** Callers of `caughtUp`, each answered by the first caught-up round that began after its call. */
  let waiters: { afterRound: number; resolve: () => void }[] = [];
  /** While a reset runs, the loop waits on it before its next round; the round in progress, if any. */
  let held: Promise<void> | undefined;
  let current: Promise<number> | undefined;

  const deliver = batchDelivery({ handle: opts.handle, failureFile: opts.failureFile, log, stats, stopping: () => stopping });

  const pollShard = async (shardId: string): Promise<number> => {
    const iterator = iterators.get(shardId) ?? (await iteratorAfter(streams, streamArn, shardId, checkpoints[shardId]));
    if (!iterator) {
      closed.add(shardId);
      mustDescribe = true;
      return 0;
    }
    let out;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: opts.batchSize ?? LOCAL_BATCH }));
    } catch (error) {
      if ((error as Error).name !== 'ExpiredIteratorException') throw error;
      iterators.delete(shardId);
      mustDescribe = true; // this round did not read the shard to its end: it cannot say "caught up"
      return 0;
    }
    const records = (out.Records ?? []).map(lambdaRecord);
    if (records.length) {
      const taken = opts.filter ? records.filter(opts.filter) : records;
      if (taken.length) await deliver(taken);
      if (stopping) return 0;
      stats.batches++;
      stats.records += records.length;
      checkpoints[shardId] = records[records.length - 1]!.dynamodb!.SequenceNumber!;
      if (opts.checkpointFile) replaceFile(opts.checkpointFile, JSON.stringify(checkpoints));
    }
    if (out.NextShardIterator) iterators.set(shardId, out.NextShardIterator);
    else {
      iterators.delete(shardId);
      closed.add(shardId);
      mustDescribe = true;
    }
    return records.length;
  };

  const kick = () => {
    idle = IDLE_MIN_MS;
    wake?.();
  };
  /** A wait of `ms` that `wake` (a pause) or `hurry` (the wait between rounds) ends early. */
  const waitFor = (ms: number, end: (done: (() => void) | undefined) => void) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        end(undefined);
        resolve();
      }
      end(done);
    });
  const pause = (ms: number) => waitFor(ms, (done) => (wake = done));

  const loop = (async () => {
    while (!stopping) {
      if (held) await held;
      if (stopping) break;
      const began = performance.now();
      current = readRound();
      const rest = await current;
      current = undefined;
      if (rest && !stopping) await pause(rest);
      // Rounds at most every ROUND_MS: a stream read costs DynamoDB Local time in proportion to the records its
      // database holds, so a busy stream is read in fewer, fuller batches; every IDLE_MIN_MS while a `caughtUp` caller waits.
      const early = () => (waiters.length > 0 ? IDLE_MIN_MS : ROUND_MS) - (performance.now() - began);
      // A caller's hurry ends the wait; what is left of IDLE_MIN_MS is then waited (and a later hurry changes nothing).
      while (early() > 0 && !stopping) await waitFor(early(), (done) => (hurry = done));
    }
  })();

  /** One round over every open shard; what to pause before the next (nothing while records flow or callers wait). */
  async function readRound(): Promise<number> {
    try {
      const round = ++rounds;
      const roundStart = new Date().toISOString();
      const describe = mustDescribe || waiters.length > 0 || Date.now() - describedAt >= DESCRIBE_EVERY_MS;
      if (describe) {
        describedAt = Date.now();
        mustDescribe = false;
        const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
        shards = StreamDescription?.Shards ?? [];
      }
      const live = shards.filter((s) => s.ShardId && !closed.has(s.ShardId));
      // Parents before children, as Lambda does: a child shard's records come after its parent's.
      const open = live.filter((s) => !s.ParentShardId || closed.has(s.ParentShardId) || !live.some((p) => p.ShardId === s.ParentShardId));
      let read = 0;
      for (const shard of open) read += await pollShard(shard.ShardId!);
      if (read > 0) {
        idle = IDLE_MIN_MS;
        return 0;
      }
      if (describe && !mustDescribe) {
        // Every shard was read to its end by a round that began at roundStart: all written before it is handled.
        if (opts.statusFile) replaceFile(opts.statusFile, JSON.stringify({ caughtUpTo: roundStart, ...stats }));
        const answered = waiters.filter((w) => w.afterRound < round);
        waiters = waiters.filter((w) => w.afterRound >= round);
        for (const w of answered) w.resolve();
      }
      if (waiters.length > 0) return 0;
      const rest = idle;
      idle = Math.min(IDLE_MAX_MS, idle * 2);
      return rest;
    } catch (error) {
      if (stopping) return 0;
      log('warn', 'stream read failed; retrying', { source: 'stream-runner', error });
      await new Promise((resolve) => setTimeout(resolve, 500)); // not ended by writes or callers: twice a second at most
      return 0;
    }
  }

  return {
    stats,
    kick,
    caughtUp: () =>
      new Promise<void>((resolve) => {
        waiters.push({ afterRound: rounds, resolve });
        kick();
        hurry?.();
      }),
    reset: async (move) => {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      wake?.();
      await current;
      try {
        await move();
        streams.destroy();
        streams = streamsClient(opts.endpoint);
        streamArn = await streamArnOf(opts.endpoint, opts.tableName);
        for (const shard of Object.keys(checkpoints)) delete checkpoints[shard];
        iterators.clear();
        closed.clear();
        shards = [];
        mustDescribe = true;
      } finally {
        held = undefined;
        release();
      }
    },
    stop: async () => {
      stopping = true;
      wake?.();
      hurry?.();
      await loop;
      streams.destroy();
      for (const w of waiters) w.resolve();
    },
  };
}
