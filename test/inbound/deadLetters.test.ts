import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sqsDeadLetters } from '#events/deadLetters';
import { lazySqsSend } from '#events/sqs';
import { sqsWebhookQueue } from '#webhooks/queue';
import { consumeInbound } from '#events/inbound';

/**
 * The consumer's dead letters: the SQS client is loaded when the first one is sent (not bundled),
 * and the message goes out as SQS's SendMessage with its reason. SQS is played by a local HTTP
 * server speaking its JSON protocol, at the queue URL's host (where the client sends).
 */
let server: Server;
const received: { target: string; body: Record<string, any> }[] = [];
let QUEUE = '';

beforeAll(async () => {
  // What Lambda's environment always holds (the SQS client needs a Region and credentials to sign).
  Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, any>;
      received.push({ target: String(req.headers['x-amz-target']), body });
      res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(body.MessageBody).digest('hex') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The SQS client sends to the host of the queue's URL.
  QUEUE = `http://127.0.0.1:${(server.address() as AddressInfo).port}/123456789012/inbound-dlq`;
});
afterAll(() => {
  server.close();
});

const record = (body: string, messageId: string): SQSRecord =>
  ({
    messageId,
    body,
    receiptHandle: 'r',
    attributes: {},
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
  }) as unknown as SQSRecord;

/** A Task Created event without its task_uuid: malformed. */
const malformed = JSON.stringify({
  'detail-type': 'Task Created',
  source: 'gitscrum.tasks',
  detail: { company_slug: 'acme', project_slug: 'web', event_id: 'e-1', occurred_at: '2026-11-23T10:00:00.000Z' },
});

describe('dead letters', () => {
  test('a malformed event is sent to the dead-letter queue with its reason, loading the SQS client then', async () => {
    let loads = 0;
    const deadLetters = sqsDeadLetters(
      QUEUE,
      lazySqsSend(() => {
        loads++;
        return createRequire(import.meta.url)('@aws-sdk/client-sqs');
      }),
    );
    expect(loads).toBe(0);
    const out = await consumeInbound([record(malformed, 'one'), record('not json', 'two')], deadLetters);
    expect(out.batchItemFailures).toEqual([]);
    expect(loads).toBe(1);
    expect(received).toHaveLength(2);
    expect(received[0]!.target).toBe('AmazonSQS.SendMessage');
    expect(received[0]!.body).toMatchObject({
      QueueUrl: QUEUE,
      MessageBody: malformed,
      MessageAttributes: { reason: { DataType: 'String', StringValue: expect.stringContaining('task_uuid') } },
    });
    expect(received[1]!.body.MessageBody).toBe('not json');
  });

  test('the default loader finds the SDK the way the deployed function does (require, not the bundle)', async () => {
    received.length = 0;
    await sqsDeadLetters(QUEUE).put('{}', 'a reason');
    expect(received.map((r) => r.body.MessageAttributes.reason.StringValue)).toEqual(['a reason']);
  });

  test('an SQS client that cannot load leaves the message to SQS: a batch item failure, delivered again', async () => {
    const deadLetters = sqsDeadLetters(
      QUEUE,
      lazySqsSend(() => {
        throw new Error("Cannot find module '@aws-sdk/client-sqs'");
      }),
    );
    const out = await consumeInbound([record(malformed, 'lost-client')], deadLetters);
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'lost-client' }]);
  });
});

describe('the webhook lanes on SQS', () => {
  test('load the client at their first send, one for both queues: a retry with its delay (at most 15 minutes), a dead letter with its reason', async () => {
    received.length = 0;
    let loads = 0;
    const lanes = sqsWebhookQueue(
      `${QUEUE}-retries`,
      `${QUEUE}-dead`,
      lazySqsSend(() => {
        loads++;
        return createRequire(import.meta.url)('@aws-sdk/client-sqs');
      }),
    );
    expect(loads).toBe(0);
    const attempt = {
      kind: 'attempt',
      workspace: 'acme',
      webhook_id: 'wh_1',
      delivery_id: 'msg_1',
      due_at: '2026-11-27T10:00:00.000Z',
    } as const;
    await lanes.later(attempt, 61_500);
    await lanes.later(attempt, 3_600_000);
    await lanes.deadLetter('{"delivery_id":"msg_1"}', 'exhausted');
    expect(loads).toBe(1);
    expect(received.map((r) => [r.body.QueueUrl, r.body.DelaySeconds])).toEqual([
      [`${QUEUE}-retries`, 62],
      [`${QUEUE}-retries`, 900],
      [`${QUEUE}-dead`, undefined],
    ]);
    expect(JSON.parse(received[0]!.body.MessageBody)).toEqual(attempt);
    expect(received[2]!.body.MessageAttributes.reason.StringValue).toBe('exhausted');
  });
});
