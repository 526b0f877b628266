import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll } from 'vitest';
import { ensureTable } from '#local/database';
import { drainTableStream } from '#local/streamReads';

/**
 * A table of the test file's own (created before its tests, deleted after), for tests that run the
 * stream processor or the inbound consumer themselves: no local API reads its stream. `drain` hands
 * the records since `checkpoints` to `handle` and moves the checkpoints, as Lambda would deliver them.
 */
export function usePrivateTable(name: string) {
  usePrivateDatabase();
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  beforeAll(async () => {
    process.env.TABLE_NAME = name;
    await ensureTable(admin, name);
  });
  afterAll(async () => {
    await admin.send(new DeleteTableCommand({ TableName: name }));
    process.env.TABLE_NAME = '';
    admin.destroy();
  });
  return {
    drain: (handle: (records: DynamoDBRecord[]) => Promise<unknown>, checkpoints: Record<string, string>) =>
      drainTableStream({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: name, handle, checkpoints }),
  };
}

/**
 * This test file's DynamoDB access key becomes one of its own, so (the test stacks' DynamoDB Local
 * keeping one in-memory database per key) its tables live in a database apart. Reading a stream costs
 * DynamoDB Local time in proportion to all the stream records of the database, and the shared one
 * gathers tens of thousands in a run: apart, a file's drains stay as fast at the end of a run as at
 * the start. Credentials are read at the first call, so this runs while the file is collected.
 */
export function usePrivateDatabase(): void {
  if (process.env.AWS_ACCESS_KEY_ID?.startsWith('private')) return;
  process.env.AWS_ACCESS_KEY_ID = `private${randomUUID().replaceAll('-', '')}`;
}
