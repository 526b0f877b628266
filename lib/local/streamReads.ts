import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { withoutSdkLog } from '#store/client';

/**
 * Reading a table's stream on DynamoDB Local: records as Lambda passes them, the stream of a table,
 * an iterator after a checkpoint; a drain of a table's stream to its end (tests and tools on tables of
 * their own); the wait for the local stream runner to catch up; and its progress files, written whole.
 */

/** A stream record as Lambda passes it (creation time in epoch seconds). */
export function lambdaRecord(r: StreamRecord): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    ...r,
    dynamodb: {
      ...d,
      ...(d.ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) } : {}),
    },
  } as DynamoDBRecord;
}

const clientConfig = (endpoint: string) => ({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1' });

/** A streams client for DynamoDB Local (without the SDK's logging step, which walks every record of an answer: store/client.ts). */
export const streamsClient = (endpoint: string) => withoutSdkLog(new DynamoDBStreamsClient(clientConfig(endpoint)));

/** The ARN of the table's stream (it must have one). */
export async function streamArnOf(endpoint: string, tableName: string): Promise<string> {
  const table = new DynamoDBClient(clientConfig(endpoint));
  try {
    const { Table } = await table.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
    return Table.LatestStreamArn;
  } finally {
    table.destroy();
  }
}

/** An iterator of a shard just after its checkpoint, or at its oldest record when it has none. */
export async function iteratorAfter(streams: DynamoDBStreamsClient, streamArn: string, shardId: string, after: string | undefined) {
  const out = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
    }),
  );
  return out.ShardIterator;
}

/**
 * Reads a table's stream from `checkpoints` (per shard; empty: from the oldest record) until it is
 * caught up, handing each batch to `handle`, and moves the checkpoints past what was handled. A batch
 * whose handler throws stops the drain with that error, its checkpoint unmoved (so the next drain
 * delivers it again, as Lambda would). For tests and tools working on a table of their own.
 */
export async function drainTableStream(opts: {
  endpoint: string;
  tableName: string;
  handle: (records: DynamoDBRecord[]) => Promise<unknown>;
  checkpoints: Record<string, string>;
}): Promise<number> {
  const streamArn = await streamArnOf(opts.endpoint, opts.tableName);
  const streams = streamsClient(opts.endpoint);
  try {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    let handled = 0;
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      let iterator = await iteratorAfter(streams, streamArn, shardId, opts.checkpoints[shardId]);
      while (iterator) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
        const records = (out.Records ?? []).map(lambdaRecord);
        if (records.length === 0) break;
        await opts.handle(records);
        handled += records.length;
        opts.checkpoints[shardId] = records[records.length - 1]!.dynamodb!.SequenceNumber!;
        iterator = out.NextShardIterator;
      }
    }
    return handled;
  } finally {
    streams.destroy();
  }
}

/**
 * Resolves once the local stream runner that writes `statusFile` has handled everything written
 * before `since` (its last read of every shard began after it and found nothing new).
 */
export async function streamCaughtUp(statusFile: string, since: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (existsSync(statusFile)) {
      try {
        if ((JSON.parse(readFileSync(statusFile, 'utf8')) as { caughtUpTo: string }).caughtUpTo > since) return;
      } catch {
        // Read while being written: read again.
      }
    }
    if (Date.now() > deadline) throw new Error(`the stream processor did not catch up within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Writes `path` whole or not at all (a new file renamed over the old): a process killed mid-write
 * leaves the previous checkpoint, never a truncated one the next start cannot read.
 */
export function replaceFile(path: string, content: string): void {
  writeFileSync(`${path}.next`, content);
  renameSync(`${path}.next`, path);
}
