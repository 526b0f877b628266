import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, test } from 'vitest';
import { db } from '#store/client';
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
});
