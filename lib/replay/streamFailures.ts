import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { lambdaRecord } from '#local/streamReads';

/**
 * Replaying stream batches the stream processor gave up on (docs/operations.md, "A stream batch given up"),
 * through the same code the processor runs (`handle`: processStreamBatch with the stage's bus), so their
 * history entries, counters, cascades, events and webhook deliveries are written after all. Every step
 * of that code is idempotent (a record already applied changes nothing, an entry already recorded is not
 * written again), so a replay of a batch that was partly handled, or replayed twice, ends the same.
 *
 * Deployed, the on-failure destination (an SQS queue) holds a description of each batch: its shard and
 * first and last sequence numbers, read again from the stream (which keeps records 24 hours). Locally, the
 * stream runner's failure file holds the records themselves.
 */
export interface ReplayReport {
  /** Batches (deployed) or records (local) replayed and removed from where they waited. */
  replayed: number;
  records: number;
  /** Those still failing, left where they were, with why. */
  failed: { what: string; error: string }[];
  /** Batches the stream no longer holds (older than 24 hours): their changes cannot be replayed (`npm run repair` sets the counters). */
  expired: string[];
}

type Handle = (records: DynamoDBRecord[]) => Promise<unknown>;

/** What Lambda writes to an on-failure destination for a stream batch (the parts used here). */
interface FailureMessage {
  DDBStreamBatchInfo?: { shardId?: string; startSequenceNumber?: string; endSequenceNumber?: string; streamArn?: string };
}

const upTo = (end: string) => (r: StreamRecord) => BigInt(r.dynamodb?.SequenceNumber ?? '0') <= BigInt(end);

/** The records of one failed batch, from the stream: from its first sequence number to its last. */
async function batchRecords(streams: DynamoDBStreamsClient, info: Required<NonNullable<FailureMessage['DDBStreamBatchInfo']>>) {
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: info.streamArn,
      ShardId: info.shardId,
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: info.startSequenceNumber,
    }),
  );
  const records: StreamRecord[] = [];
  let iterator = ShardIterator;
  for (let empty = 0; iterator && empty < 3; ) {
    const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const got = out.Records ?? [];
    records.push(...got.filter(upTo(info.endSequenceNumber)));
    if (got.some((r) => !upTo(info.endSequenceNumber)(r)) || records.at(-1)?.dynamodb?.SequenceNumber === info.endSequenceNumber) break;
    empty = got.length === 0 ? empty + 1 : 0;
    iterator = out.NextShardIterator;
  }
  return records;
}

/** Replays every batch described on the stream failure queue, deleting each message once its batch went through. */
export async function replayQueue(opts: {
  sqs: SQSClient;
  queueUrl: string;
  streams: DynamoDBStreamsClient;
  handle: Handle;
  dryRun?: boolean;
}) {
  const report: ReplayReport = { replayed: 0, records: 0, failed: [], expired: [] };
  const seen = new Set<string>();
  for (;;) {
    const { Messages = [] } = await opts.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: opts.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 300 }),
    );
    const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
    if (fresh.length === 0) return report;
    for (const message of fresh) {
      seen.add(message.MessageId!);
      const info = (JSON.parse(message.Body ?? '{}') as FailureMessage).DDBStreamBatchInfo;
      const what = `shard ${info?.shardId} sequence ${info?.startSequenceNumber}..${info?.endSequenceNumber}`;
      if (!info?.shardId || !info.startSequenceNumber || !info.endSequenceNumber || !info.streamArn) {
        report.failed.push({ what: `message ${message.MessageId}`, error: 'not a stream batch description (no DDBStreamBatchInfo)' });
        continue;
      }
      try {
        const records = await batchRecords(opts.streams, info as Required<typeof info>);
        if (records.length === 0) {
          report.expired.push(what);
          continue;
        }
        if (!opts.dryRun) await opts.handle(records.map(lambdaRecord));
        report.records += records.length;
        report.replayed++;
        if (!opts.dryRun) await opts.sqs.send(new DeleteMessageCommand({ QueueUrl: opts.queueUrl, ReceiptHandle: message.ReceiptHandle! }));
      } catch (error) {
        report.failed.push({ what, error: (error as Error).message });
      }
    }
  }
}

/**
 * Replays the records the local stream runner set aside (its failure file, one JSON line each), in their
 * order, each once; the lines whose record fails again stay in the file, the others leave it.
 */
export async function replayFile(file: string, handle: Handle, dryRun = false): Promise<ReplayReport> {
  const report: ReplayReport = { replayed: 0, records: 0, failed: [], expired: [] };
  if (!existsSync(file)) return report;
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const kept: string[] = [];
  for (const line of lines) {
    const { record } = JSON.parse(line) as { record: DynamoDBRecord };
    try {
      if (!dryRun) await handle([record]);
      report.replayed++;
      report.records++;
    } catch (error) {
      report.failed.push({ what: `record ${record.eventID}`, error: (error as Error).message });
      kept.push(line);
    }
    if (dryRun) kept.push(line);
  }
  writeFileSync(`${file}.replaying`, kept.map((l) => `${l}\n`).join(''));
  renameSync(`${file}.replaying`, file);
  return report;
}
