import { createRequire } from 'node:module';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type * as Kms from '@aws-sdk/client-kms';
import type * as Sqs from '@aws-sdk/client-sqs';
import { describe, expect, test } from 'vitest';
import { lazySqsSend } from '#events/sqs';
import { db } from '#store/client';
import { kmsVault } from '#store/sealing';
import { streamsClient } from '#local/streamReads';

/** The names of a client's middleware steps. */
const steps = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((s) => s.split(' ')[0]);

describe('SDK clients', () => {
  test("the service's DynamoDB client and the local stream reader's run without the SDK's logging step", () => {
    // The step exists under this name in a client as the SDK makes it: the removal is of the right step.
    expect(steps(new DynamoDBClient({ region: 'us-east-1' }))).toContain('loggerMiddleware');
    expect(steps(db)).not.toContain('loggerMiddleware');
    expect(steps(streamsClient('http://127.0.0.1:1'))).not.toContain('loggerMiddleware');
    // The rest of the stack is still there: signing, retries, serialisation.
    expect(steps(db)).toEqual(expect.arrayContaining(['retryMiddleware', 'httpSigningMiddleware']));
  });

  test('the SQS and KMS clients, made at their first call, give up on a call that hangs (the SDK waits without end by default)', async () => {
    const made: unknown[] = [];
    // The SDK as loaded, with a client that records how it is made and answers nothing.
    const recording = <T extends object>(sdk: T, name: keyof T) => ({
      ...sdk,
      [name]: class {
        constructor(config: unknown) {
          made.push(config);
        }
        send = () => Promise.reject(new Error('not sent'));
      },
    });
    const require = createRequire(import.meta.url);
    const send = lazySqsSend(() => recording(require('@aws-sdk/client-sqs') as typeof Sqs, 'SQSClient') as unknown as typeof Sqs);
    await expect(send({ QueueUrl: 'https://sqs.example/q', MessageBody: '{}' })).rejects.toThrow('not sent');
    const vault = kmsVault('key-1', () => recording(require('@aws-sdk/client-kms') as typeof Kms, 'KMSClient') as unknown as typeof Kms);
    await expect(vault.newDataKey('acme')).rejects.toThrow('not sent');
    const timeouts = { requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 } };
    expect(made).toEqual([timeouts, timeouts]);
  });
});
