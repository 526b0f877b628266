import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { expect, test } from 'vitest';
import { listActivity } from '#domain/activityReads';
import { createLabel } from '#domain/labels';
import { createProject, getProjectWithStats, updateProject } from '#domain/projects';
import { changeLabels } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { replayFile, replayQueue } from '#lib/replay/streamFailures';
import { streamArnOf, streamsClient } from '#local/streamReads';
import { uniqueWorkspace } from '#support/api';
import { usePrivateTable } from '#support/privateTable';

/**
 * A stream batch the processor gave up on is written after all by `npm run replay` (lib/replay/streamFailures.ts):
 * deployed, from the description Lambda leaves on the failure queue (SQS mocked: DynamoDB Local has none), its
 * records read again from the real stream; locally, from the records the stream runner set aside. Its history
 * entries, counters and events follow, each once however often it is replayed.
 */
const actor = { name: 'Ops', username: 'ops' };
const TABLE = 'stream-replay';
const { drain } = usePrivateTable(TABLE);
const tip: Record<string, string> = {};

/** A workload's stream records, given up on: collected, never processed. */
async function givenUp(ws: string) {
  await drain(async () => undefined, tip);
  await createProject(ws, { name: 'Replayed', owner: actor });
  await createLabel(ws, { title: 'Again', color: '123456' }, actor);
  await changeLabels('attach', ws, { labelSlug: 'again', projectSlug: 'replayed', taskUuids: ['t-1', 't-2'] }, actor);
  await updateProject(ws, 'replayed', { description: 'after the attach' }, actor);
  const records: DynamoDBRecord[] = [];
  const before = { ...tip };
  await drain(async (batch) => void records.push(...batch), tip);
  const shards = Object.keys(tip).filter((shard) => tip[shard] !== before[shard]);
  expect(shards).toHaveLength(1);
  return { records, shardId: shards[0]! };
}

async function history(ws: string) {
  const page = await listActivity(ws, { context: 'company', order: 'asc' }, { limit: 100 });
  return page.items.map((e) => [e.sequence, e.type]);
}

const expected = [
  [1, 'Project Created'],
  [2, 'Label Created'],
  [3, 'Label Attached'],
  [4, 'Label Attached'],
  [5, 'Project Updated'],
];

test('a batch described on the failure queue is read again from the stream and written: entries, counters, events; once, however often replayed', async () => {
  const ws = uniqueWorkspace('replay');
  const { records, shardId } = await givenUp(ws);
  expect(await history(ws)).toEqual([]);
  const message = {
    MessageId: 'm-1',
    ReceiptHandle: 'r-1',
    Body: JSON.stringify({
      requestContext: { condition: 'RetryAttemptsExhausted' },
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: records[0]!.dynamodb!.SequenceNumber,
        endSequenceNumber: records.at(-1)!.dynamodb!.SequenceNumber,
        batchSize: records.length,
        streamArn: await streamArnOf(process.env.DYNAMODB_ENDPOINT!, TABLE),
      },
    }),
  };
  const sqs = mockClient(SQSClient);
  const published: OutboundEvent[] = [];
  const bus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };
  const streams = streamsClient(process.env.DYNAMODB_ENDPOINT!);
  try {
    for (let replay = 0; replay < 2; replay++) {
      sqs.reset();
      sqs
        .on(ReceiveMessageCommand)
        .resolvesOnce({ Messages: [message] })
        .resolves({ Messages: [] });
      sqs.on(DeleteMessageCommand).resolves({});
      const report = await replayQueue({
        sqs: new SQSClient({ region: 'us-east-1' }),
        queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/stream-failures',
        streams,
        handle: (batch) => processStreamBatch(batch, bus),
      });
      expect(report).toEqual({ replayed: 1, records: records.length, failed: [], expired: [] });
      expect(sqs.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input.ReceiptHandle)).toEqual(['r-1']);
      // The same entries after the second replay: none written twice.
      expect(await history(ws)).toEqual(expected);
    }
    // Events are published each time (consumers see a duplicate with the same event_id, never a gap).
    expect(new Set(published.map((e) => e.detail.event_id)).size).toBe(5);
    // And the counters the records move: the project counts its one label.
    await drain((batch) => processStreamBatch(batch, bus), tip);
    expect((await getProjectWithStats(ws, 'replayed')).labels_count).toBe(1);
    const labels = (await listActivity(ws, { context: 'project', projectSlug: 'replayed', order: 'asc' }, { limit: 10 })).items;
    expect(labels.filter((e) => e.type === 'Label Attached').map((e) => e.task_uuid)).toEqual(['t-1', 't-2']);
  } finally {
    sqs.restore();
    streams.destroy();
  }
});

test('locally, the records npm start set aside are replayed in order; one that fails again stays in the file', async () => {
  const ws = uniqueWorkspace('replay-file');
  const { records } = await givenUp(ws);
  const file = join(mkdtempSync(join(tmpdir(), 'pls-replay-')), 'events.failures.jsonl');
  // As the stream runner writes them (lib/local/streamDelivery.ts), and one that cannot be handled: a project with no fields.
  const poison = { ...records[0]!, eventID: 'poison', dynamodb: { ...records[0]!.dynamodb, NewImage: { type: { S: 'project' } } } };
  const lines = [...records, poison].map((record) => JSON.stringify({ error: 'given up', failedAt: new Date().toISOString(), record }));
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  const dry = await replayFile(file, (batch) => processStreamBatch(batch, { publish: async () => undefined }), true);
  expect(dry.replayed).toBe(records.length + 1);
  expect(await history(ws)).toEqual([]);
  const report = await replayFile(file, (batch) => processStreamBatch(batch, { publish: async () => undefined }));
  expect(report.replayed).toBe(records.length);
  expect(report.failed.map((f) => f.what)).toEqual(['record poison']);
  expect(await history(ws)).toEqual(expected);
  expect(existsSync(file)).toBe(true);
  expect(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { record: DynamoDBRecord }).record.eventID),
  ).toEqual(['poison']);
});
