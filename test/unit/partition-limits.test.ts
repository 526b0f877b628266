import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { HttpRequest } from '@smithy/types';
import { describe, expect, test, vi } from 'vitest';
import { Busy } from '#domain/errors';
import { inDomainTerms } from '#domain/failures';
import { batchOf } from '#local/partitions/batches';
import { PartitionBuckets, type Draw } from '#local/partitions/buckets';
import { imageId } from '#local/partitions/images';
import { partitionLimitsRule } from '#local/partitions/limits';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import { consumption, itemSize, type Wire, type WireItem } from '#local/partitions/units';
import { Refusal } from '#lib/settings/rules';
import { keys } from '#store/keys';
import { TABLE } from '#store/table';

/**
 * The partition simulator's parts without a database: the setting, the token buckets, what a request
 * draws on which partition (from the requests the SDK really sends, captured at its HTTP handler), and
 * the SDK's own handling of the simulator's refusals (its exceptions, its retries, the store's Busy).
 */
const T = 'project-label-service';
const WS = 'acme-corp';
const limits = { rcu: 20, wcu: 10, burstSeconds: 1, split: 1 };

/** A DocumentClient whose HTTP handler is this fake DynamoDB: it records each request and answers `answer`'s JSON. */
function fakeDynamoDB(answer: (operation: string, body: Wire) => Wire = () => ({})) {
  const received: { operation: string; body: Wire }[] = [];
  const requestHandler = {
    handle: async (request: HttpRequest) => {
      const operation = String(request.headers['x-amz-target']).split('.')[1]!;
      const bytes = request.body as Uint8Array; // Buffer.from(body) would read it through its valueOf(), which the SDK warns of
      const body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as Wire;
      received.push({ operation, body });
      const answered = Buffer.from(JSON.stringify(answer(operation, body)));
      return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: answered } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 2,
    requestHandler,
  });
  return { db: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), received };
}

/** The same fake, behind the simulator, on buckets whose clock stands still (nothing refills). */
function simulated(answer?: (operation: string, body: Wire) => Wire) {
  const fake = fakeDynamoDB(answer);
  const buckets = new PartitionBuckets(limits, () => 0);
  fake.db.middlewareStack.add(partitionSimulator(buckets), SIMULATOR_MIDDLEWARE);
  return { ...fake, buckets };
}

/** The JSON the SDK puts on the wire for what `send` sends. */
async function wireOf(send: (db: DynamoDBDocumentClient) => Promise<unknown>): Promise<Wire> {
  const { db, received } = fakeDynamoDB();
  await send(db);
  return received[0]!.body;
}

const project = (slug: string, padding = 0) => ({
  ...keys.project(WS, slug),
  ...keys.projectStatusIndex(WS, 'active', slug),
  ...keys.projectNameIndex(WS, slug),
  type: 'project',
  description: 'x'.repeat(padding),
});
const read = (key: string, units: number, index?: string): Draw => ({
  table: T,
  ...(index ? { index } : {}),
  key,
  capacity: 'read',
  units,
});
const write = (key: string, units: number, index?: string): Draw => ({
  table: T,
  ...(index ? { index } : {}),
  key,
  capacity: 'write',
  units,
});
/** A draw on one item of the table: its key's, naming the item by its sort key (an item cannot be split). */
const onItem = (draw: Draw, key: { SK: string }): Draw => ({ ...draw, item: key.SK });
const WEB = keys.project(WS, 'web');

describe('DYNAMODB_PARTITION_LIMITS', () => {
  test.each([
    ['rcu=20,wcu=10,burst=1', { rcu: 20, wcu: 10, burstSeconds: 1, split: 1 }],
    ['burst=0.5,wcu=1,rcu=3000', { rcu: 3000, wcu: 1, burstSeconds: 0.5, split: 1 }],
    ['rcu=100000,wcu=100000,burst=300', { rcu: 100000, wcu: 100000, burstSeconds: 300, split: 1 }],
    ['rcu=20,wcu=10,burst=1,split=4', { rcu: 20, wcu: 10, burstSeconds: 1, split: 4 }],
    ['split=64,rcu=1,wcu=1,burst=1', { rcu: 1, wcu: 1, burstSeconds: 1, split: 64 }],
  ])('%s is read as its limits', (text, expected) => {
    expect(partitionLimitsRule.read(text)).toEqual(expected);
  });

  test.each([
    ['rcu=20,wcu=10', 'no burst'],
    ['wcu=10', 'no rcu and no burst'],
    ['rcu=20,wcu=10,burst=1,wcu=5', 'wcu is given twice'],
    ['rcu=0,wcu=10,burst=1', 'rcu is not a whole number from 1 to 100000'],
    ['rcu=20,wcu=100001,burst=1', 'wcu is not a whole number from 1 to 100000'],
    ['rcu=20,wcu=10,burst=301', 'burst is not a number of seconds above 0 and at most 300'],
    ['rcu=20,wcu=10,burst=0', 'burst is not a number of seconds above 0 and at most 300'],
    ['rcu=20;wcu=10;burst=1', 'each part is rcu=, wcu=, burst= or split= and a number'],
    ['RCU=20,WCU=10,BURST=1', 'each part is rcu=, wcu=, burst= or split= and a number'],
    ['rcu=2e1,wcu=10,burst=1', 'each part is rcu=, wcu=, burst= or split= and a number'],
    ['rcu=1.5,wcu=10,burst=1', 'rcu is not a whole number from 1 to 100000'],
    ['rcu=20,wcu=10,burst=1,split=0', 'split is not a whole number from 1 to 64'],
    ['rcu=20,wcu=10,burst=1,split=65', 'split is not a whole number from 1 to 64'],
    ['rcu=20,wcu=10,burst=1,split=1.5', 'split is not a whole number from 1 to 64'],
    ['rcu=20,wcu=10,burst=1,split=2,split=2', 'split is given twice'],
  ])('%s is refused: %s', (text, why) => {
    const refused = partitionLimitsRule.read(text);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).why).toBe(why);
  });
});

describe('the token buckets', () => {
  const hot = { table: T, key: 'WS#hot' };
  const clock = () => {
    const c = { ms: 0, now: () => c.ms };
    return c;
  };

  test('a bucket starts full: rate x burst units', () => {
    const buckets = new PartitionBuckets({ rcu: 20, wcu: 10, burstSeconds: 2, split: 1 });
    expect(buckets.available(hot, 'read')).toBe(40);
    expect(buckets.available(hot, 'write')).toBe(20);
  });

  test('a request goes while its bucket has units; charged past empty, the partition is in debt and refused', () => {
    const c = clock();
    const buckets = new PartitionBuckets(limits, c.now);
    const draw = write('WS#hot', 6);
    expect(buckets.emptyAmong([draw])).toBeUndefined();
    buckets.charge([draw]);
    expect(buckets.emptyAmong([draw])).toBeUndefined(); // 4 left
    buckets.charge([draw]);
    expect(buckets.available(hot, 'write')).toBe(-2);
    expect(buckets.emptyAmong([draw])).toEqual({ ...draw, onItem: false });
  });

  test('the refill is the rate per second, and a bucket holds at most burst seconds of it', () => {
    const c = clock();
    const buckets = new PartitionBuckets(limits, c.now);
    buckets.charge([write('WS#hot', 12)]);
    c.ms = 100;
    expect(buckets.available(hot, 'write')).toBeCloseTo(-1);
    c.ms = 250;
    expect(buckets.available(hot, 'write')).toBeCloseTo(0.5);
    c.ms = 60_000;
    expect(buckets.available(hot, 'write')).toBe(10);
  });

  test('emptied, every bucket (charged before or never used) holds what it refilled since, up to its burst: no first second of burst', () => {
    const c = clock();
    const buckets = new PartitionBuckets(limits, c.now);
    buckets.charge([write('WS#hot', 3)]);
    c.ms = 1_000;
    buckets.emptyFrom(200);
    expect(buckets.available(hot, 'write')).toBeCloseTo(2);
    expect(buckets.available({ table: T, key: 'WS#neighbour' }, 'write')).toBeCloseTo(2);
    c.ms = 1_500;
    expect(buckets.available({ table: T, key: 'WS#later' }, 'read')).toBeCloseTo(14);
    c.ms = 60_000;
    expect(buckets.available(hot, 'write')).toBe(10);
  });

  test("a partition's buckets are its own: another key, an index, reads and writes apart", () => {
    const buckets = new PartitionBuckets(limits, () => 0);
    buckets.charge([write('WS#hot', 50), read('WS#hot', 50, 'GSI1')]);
    expect(buckets.available(hot, 'write')).toBe(-40);
    expect(buckets.available({ table: T, key: 'WS#neighbour' }, 'write')).toBe(10);
    expect(buckets.available(hot, 'read')).toBe(20);
    expect(buckets.available({ ...hot, index: 'GSI1' }, 'read')).toBe(-30);
    expect(buckets.available({ ...hot, index: 'GSI1' }, 'write')).toBe(10);
    expect(buckets.available({ table: 'another-table', key: 'WS#hot' }, 'write')).toBe(10);
  });
});

describe('split for heat: a key splits, an item does not', () => {
  const one = (item: string): Draw => ({ ...write('WS#hot', 1), item });

  test("split into 4, a key takes 4 partitions' units, spread over its items; one item stops at one partition's", () => {
    const buckets = new PartitionBuckets({ rcu: 20, wcu: 10, burstSeconds: 1, split: 4 }, () => 0);
    expect(buckets.available({ table: T, key: 'WS#hot' }, 'write')).toBe(40);
    for (let i = 0; i < 10; i++) {
      expect(buckets.emptyAmong([one('COUNTER#LABEL_ID')])).toBeUndefined();
      buckets.charge([one('COUNTER#LABEL_ID')]);
    }
    // The eleventh write of the same item is refused, named as the item's, though its key has 30 units left.
    expect(buckets.emptyAmong([one('COUNTER#LABEL_ID')])).toEqual({ ...one('COUNTER#LABEL_ID'), onItem: true });
    expect(buckets.available({ table: T, key: 'WS#hot' }, 'write')).toBe(30);
    // Other items of the key go, until the key's own 40 are spent.
    for (let i = 0; i < 30; i++) {
      expect(buckets.emptyAmong([one(`LABEL#${i}`)])).toBeUndefined();
      buckets.charge([one(`LABEL#${i}`)]);
    }
    expect(buckets.emptyAmong([one('LABEL#fresh')])).toEqual({ ...one('LABEL#fresh'), onItem: false });
  });

  test('unsplit (the default), an item and its key run out together; a Query draws on the key alone', () => {
    const buckets = new PartitionBuckets(limits, () => 0);
    for (let i = 0; i < 10; i++) buckets.charge([one(`LABEL#${i}`)]);
    expect(buckets.emptyAmong([one('LABEL#0')])).toEqual({ ...one('LABEL#0'), onItem: false });
    expect(buckets.emptyAmong([read('WS#hot', 1)])).toBeUndefined();
  });
});

describe('what a request draws, from what the SDK sends', () => {
  test('GetItem: its partition; 4 KB per read unit, eventually consistent half, sized by the item it returned', async () => {
    const consistent = await wireOf((db) => db.send(new GetCommand({ TableName: T, Key: keys.project(WS, 'web'), ConsistentRead: true })));
    expect(consumption('GetItem', consistent)).toEqual([onItem(read('WS#acme-corp', 1), WEB)]);
    const big = { Item: { PK: { S: 'WS#acme-corp' }, blob: { S: 'x'.repeat(9000) } } };
    expect(consumption('GetItem', consistent, big)).toEqual([onItem(read('WS#acme-corp', 3), WEB)]);
    const eventual = await wireOf((db) => db.send(new GetCommand({ TableName: T, Key: keys.project(WS, 'web') })));
    expect(consumption('GetItem', eventual, big)).toEqual([onItem(read('WS#acme-corp', 1.5), WEB)]);
  });

  test('PutItem: 1 KB per write unit on its partition and on the partition of each index it has a key of', async () => {
    const wire = await wireOf((db) => db.send(new PutCommand({ TableName: T, Item: project('web', 1500) })));
    expect(itemSize(wire.Item as WireItem)).toBeGreaterThan(1500);
    expect(consumption('PutItem', wire)).toEqual([
      onItem(write('WS#acme-corp', 2), WEB),
      write('WS#acme-corp#STATUS#active', 2, 'GSI1'),
      write('WS#acme-corp#NAME', 2, 'GSI2'),
    ]);
    const link = await wireOf((db) => db.send(new PutCommand({ TableName: T, Item: keys.taskLink('p1', 'task-1', 7) })));
    expect(consumption('PutItem', link)).toEqual([onItem(write('PROJECT#p1', 1), keys.taskLink('p1', 'task-1', 7))]);
  });

  test('UpdateItem: its partition and the index whose key it sets (names resolved); with ALL_NEW, sized by the item returned', async () => {
    const wire = await wireOf((db) =>
      db.send(
        new UpdateCommand({
          TableName: T,
          Key: keys.project(WS, 'web'),
          UpdateExpression: 'SET #status = :status, #GSI1PK = :GSI1PK',
          ExpressionAttributeNames: { '#status': 'status', '#GSI1PK': 'GSI1PK' },
          ExpressionAttributeValues: { ':status': 'archived', ':GSI1PK': keys.projectStatusPartition(WS, 'archived') },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    expect(consumption('UpdateItem', wire)).toEqual([
      onItem(write('WS#acme-corp', 1), WEB),
      write('WS#acme-corp#STATUS#archived', 1, 'GSI1'),
    ]);
    const after = await wireOf((db) =>
      db.send(new PutCommand({ TableName: T, Item: { ...project('web', 3000), GSI1PK: 'WS#acme-corp#STATUS#archived' } })),
    );
    expect(consumption('UpdateItem', wire, { Attributes: after.Item })).toEqual([
      onItem(write('WS#acme-corp', 4), WEB),
      write('WS#acme-corp#STATUS#archived', 4, 'GSI1'),
      write('WS#acme-corp#NAME', 4, 'GSI2'),
    ]);
  });

  test('Query: the partition of its key condition, of the index it names (read eventually consistent), sized by what it returned', async () => {
    const byName = await wireOf((db) =>
      db.send(
        new QueryCommand({
          TableName: T,
          IndexName: TABLE.indexes.byName.name,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': 'GSI2PK', '#sk': 'GSI2SK' },
          ExpressionAttributeValues: { ':pk': keys.projectNamePartition(WS), ':prefix': 'web' },
        }),
      ),
    );
    expect(consumption('Query', byName)).toEqual([read('WS#acme-corp#NAME', 0.5, 'GSI2')]);
    const items = Array.from({ length: 10 }, () => ({ PK: { S: 'WS#acme-corp' }, blob: { S: 'x'.repeat(1000) } }));
    expect(consumption('Query', byName, { Items: items })).toEqual([read('WS#acme-corp#NAME', 1.5, 'GSI2')]);
    const labels = await wireOf((db) =>
      db.send(
        new QueryCommand({
          TableName: T,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
          ExpressionAttributeValues: { ':pk': keys.workspace(WS), ':prefix': keys.labelSkPrefix },
          ConsistentRead: true,
        }),
      ),
    );
    expect(consumption('Query', labels, { Items: items })).toEqual([read('WS#acme-corp', 3)]);
  });

  test('TransactWriteItems: each part as alone, doubled; a condition check is a write of its partition', async () => {
    const wire = await wireOf((db) =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: T, Item: keys.label(WS, 'bug') } },
            {
              Update: {
                TableName: T,
                Key: keys.labelIdCounter(WS),
                UpdateExpression: 'ADD #n :one',
                ExpressionAttributeNames: { '#n': 'n' },
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            { ConditionCheck: { TableName: T, Key: keys.project(WS, 'web'), ConditionExpression: 'attribute_exists(PK)' } },
            { Delete: { TableName: T, Key: keys.labelLink(WS, 7, 'p1', 'task-1') } },
          ],
        }),
      ),
    );
    expect(consumption('TransactWriteItems', wire)).toEqual([
      onItem(write('WS#acme-corp', 2), keys.label(WS, 'bug')),
      onItem(write('WS#acme-corp', 2), keys.labelIdCounter(WS)),
      onItem(write('WS#acme-corp', 2), WEB),
      onItem(write('LABEL#acme-corp#7', 2), keys.labelLink(WS, 7, 'p1', 'task-1')),
    ]);
  });

  test('with the images of what it writes, a write is billed as DynamoDB bills it: the larger image, and every index entry it adds, moves, rewrites or removes', async () => {
    const big = (await wireOf((db) => db.send(new PutCommand({ TableName: T, Item: { ...project('web', 2500), tasks_count: 1 } }))))
      .Item as WireItem;
    const key = { PK: big.PK!, SK: big.SK! };
    const imagesOfWeb = (before?: WireItem, after?: WireItem) => new Map([[imageId(T, key), { before, after }]]);
    const remove = await wireOf((db) => db.send(new DeleteCommand({ TableName: T, Key: keys.project(WS, 'web') })));
    // A delete: the item removed (3 KB), and its entry in each index.
    expect(consumption('DeleteItem', remove, undefined, imagesOfWeb(big, undefined))).toEqual([
      onItem(write('WS#acme-corp', 3), WEB),
      write('WS#acme-corp#STATUS#active', 3, 'GSI1'),
      write('WS#acme-corp#NAME', 3, 'GSI2'),
    ]);
    // A put replacing it with a small item out of the indexes: the larger image, and both entries removed.
    const small = await wireOf((db) => db.send(new PutCommand({ TableName: T, Item: keys.project(WS, 'web') })));
    expect(consumption('PutItem', small, undefined, imagesOfWeb(big, small.Item as WireItem))).toEqual([
      onItem(write('WS#acme-corp', 3), WEB),
      write('WS#acme-corp#STATUS#active', 3, 'GSI1'),
      write('WS#acme-corp#NAME', 3, 'GSI2'),
    ]);
    // An index carrying a few attributes (GSI3) is written only when they change: a delivery's attempt count is not among them.
    const delivery = (attempts: number) => ({
      PK: { S: 'WEBHOOK#acme-corp#w1' },
      SK: { S: 'DELIVERY#d1' },
      due_shard: { S: 'DUE#3' },
      next_attempt_at: { S: '2026-12-02T00:00:00.000Z' },
      workspace: { S: WS },
      attempts: { N: String(attempts) },
    });
    const attempted = await wireOf((db) =>
      db.send(
        new UpdateCommand({
          TableName: T,
          Key: { PK: 'WEBHOOK#acme-corp#w1', SK: 'DELIVERY#d1' },
          UpdateExpression: 'ADD attempts :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
    const deliveryImages = (before: WireItem, after: WireItem) => new Map([[imageId(T, attempted.Key as WireItem), { before, after }]]);
    const d1 = { SK: 'DELIVERY#d1' };
    expect(consumption('UpdateItem', attempted, undefined, deliveryImages(delivery(1), delivery(2)))).toEqual([
      onItem(write('WEBHOOK#acme-corp#w1', 1), d1),
    ]);
    const rescheduled = { ...delivery(2), next_attempt_at: { S: '2026-12-02T00:05:00.000Z' } };
    expect(consumption('UpdateItem', attempted, undefined, deliveryImages(delivery(1), rescheduled))).toEqual([
      onItem(write('WEBHOOK#acme-corp#w1', 1), d1),
      write('DUE#3', 1, 'GSI3'),
      write('DUE#3', 1, 'GSI3'),
    ]);
    // In a transaction, each part's images, doubled.
    const inTransaction = await wireOf((db) =>
      db.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: T, Key: keys.project(WS, 'web') } }] })),
    );
    expect(consumption('TransactWriteItems', inTransaction, undefined, imagesOfWeb(big, undefined))).toEqual([
      onItem(write('WS#acme-corp', 6), WEB),
      write('WS#acme-corp#STATUS#active', 6, 'GSI1'),
      write('WS#acme-corp#NAME', 6, 'GSI2'),
    ]);
  });

  test('TransactGetItems: each get, doubled, sized by what it found', async () => {
    const wire = await wireOf((db) =>
      db.send(new TransactGetCommand({ TransactItems: [{ Get: { TableName: T, Key: keys.token('t1') } }] })),
    );
    expect(consumption('TransactGetItems', wire)).toEqual([onItem(read('TOKEN#t1', 2), keys.token('t1'))]);
    expect(consumption('TransactGetItems', wire, { Responses: [{ Item: { blob: { S: 'x'.repeat(5000) } } }] })).toEqual([
      onItem(read('TOKEN#t1', 4), keys.token('t1')),
    ]);
  });

  test('Scan and the table operations draw nothing (the simulator lets them through)', () => {
    expect(consumption('Scan', { TableName: T })).toBeUndefined();
    expect(consumption('DescribeTable', { TableName: T })).toBeUndefined();
  });

  test('BatchWriteItem: each request apart; kept ones resent alone, the others added to UnprocessedItems', async () => {
    const wire = await wireOf((db) =>
      db.send(
        new BatchWriteCommand({
          RequestItems: {
            [T]: [{ DeleteRequest: { Key: keys.labelLink(WS, 7, 'p1', 't1') } }, { PutRequest: { Item: keys.taskLink('p1', 't1', 7) } }],
          },
        }),
      ),
    );
    const batch = batchOf('BatchWriteItem', wire)!;
    expect(batch.entries.map((e) => e.draws)).toEqual([
      [onItem(write('LABEL#acme-corp#7', 1), keys.labelLink(WS, 7, 'p1', 't1'))],
      [onItem(write('PROJECT#p1', 1), keys.taskLink('p1', 't1', 7))],
    ]);
    const [link, task] = batch.entries as [(typeof batch.entries)[0], (typeof batch.entries)[0]];
    expect(batch.withOnly([task])).toEqual({ RequestItems: { [T]: [task.request] } });
    const answer = batch.withUnprocessed({ UnprocessedItems: {} }, [link]);
    expect(answer).toEqual({ UnprocessedItems: { [T]: [link.request] } });
  });

  test('BatchGetItem: each key apart; unprocessed keys keep their read options; a key is charged by the item found for it', async () => {
    const wire = await wireOf((db) =>
      db.send(
        new BatchGetCommand({
          RequestItems: { [T]: { Keys: [keys.label(WS, 'bug'), keys.label('other-ws', 'bug')], ConsistentRead: true } },
        }),
      ),
    );
    const batch = batchOf('BatchGetItem', wire)!;
    expect(batch.entries.map((e) => e.draws)).toEqual([
      [onItem(read('WS#acme-corp', 1), keys.label(WS, 'bug'))],
      [onItem(read('WS#other-ws', 1), keys.label('other-ws', 'bug'))],
    ]);
    const [mine, theirs] = batch.entries as [(typeof batch.entries)[0], (typeof batch.entries)[0]];
    expect(batch.withOnly([mine])).toEqual({ RequestItems: { [T]: { Keys: [mine.request], ConsistentRead: true } } });
    expect(batch.withUnprocessed({ Responses: {} }, [theirs])).toEqual({
      Responses: {},
      UnprocessedKeys: { [T]: { Keys: [theirs.request], ConsistentRead: true } },
    });
    const found = { ...(mine.request as WireItem), blob: { S: 'x'.repeat(8000) } };
    expect(batch.consumed([mine], { Responses: { [T]: [found] } })).toEqual([onItem(read('WS#acme-corp', 2), keys.label(WS, 'bug'))]);
  });
});

describe('the SDK against a simulated partition', () => {
  test('a read of an empty partition: ProvisionedThroughputExceededException, retried by the SDK, never sent; Busy in the domain', async () => {
    const { db, buckets, received } = simulated();
    buckets.charge([read('WS#acme-corp', 20)]);
    const error = await db.send(new GetCommand({ TableName: T, Key: keys.project(WS, 'web') })).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      $metadata: { httpStatusCode: 400, attempts: 2 },
      ThrottlingReasons: [{ reason: 'TableReadKeyRangeThroughputExceeded', resource: `arn:aws:dynamodb:ddblocal:000000000000:table/${T}` }],
    });
    expect(received).toEqual([]);
    expect(inDomainTerms(error)).toBeInstanceOf(Busy);
    // The neighbour's partition is not touched.
    await db.send(new GetCommand({ TableName: T, Key: keys.project('neighbour', 'web') }));
    expect(received.map((r) => r.operation)).toEqual(['GetItem']);
  });

  test('a transaction on a partition whose index has no units left: ThrottlingException, retried; Busy', async () => {
    const { db, buckets, received } = simulated();
    buckets.charge([write('WS#acme-corp#NAME', 10, 'GSI2')]);
    const error = await db
      .send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T, Item: project('web') } }] }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ThrottlingException',
      $metadata: { attempts: 2 },
      ThrottlingReasons: [
        { reason: 'IndexWriteKeyRangeThroughputExceeded', resource: `arn:aws:dynamodb:ddblocal:000000000000:table/${T}/index/GSI2` },
      ],
    });
    expect(received).toEqual([]);
    expect(inDomainTerms(error)).toBeInstanceOf(Busy);
  });

  test('writes are charged as they go: the eleventh 1 KB write of a 10 WCU partition with 1 s of burst is refused', async () => {
    const { db, received } = simulated();
    for (let i = 0; i < 10; i++) await db.send(new PutCommand({ TableName: T, Item: keys.taskLink('p1', `t${i}`, 1) }));
    await expect(db.send(new PutCommand({ TableName: T, Item: keys.taskLink('p1', 't10', 1) }))).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    expect(received).toHaveLength(10);
  });

  test('a batch partly on an empty partition: the rest is sent, the SDK answers the others unprocessed', async () => {
    const { db, buckets, received } = simulated(() => ({ UnprocessedItems: {} }));
    buckets.charge([write('PROJECT#hot', 10)]);
    const out = await db.send(
      new BatchWriteCommand({
        RequestItems: {
          [T]: [{ PutRequest: { Item: keys.taskLink('hot', 't1', 1) } }, { PutRequest: { Item: keys.taskLink('cool', 't1', 1) } }],
        },
      }),
    );
    expect(out.UnprocessedItems).toEqual({ [T]: [{ PutRequest: { Item: keys.taskLink('hot', 't1', 1) } }] });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toEqual({
      RequestItems: { [T]: [{ PutRequest: { Item: { PK: { S: 'PROJECT#cool' }, SK: { S: 'TASK#t1#LABEL#1' } } } }] },
    });
  });

  test('a request it cannot read, or an operation it does not charge, goes through untouched', async () => {
    const buckets = new PartitionBuckets(limits, () => 0);
    buckets.charge([read('WS#acme-corp', 100), write('WS#acme-corp', 100)]);
    const next = vi.fn(async () => ({ response: { statusCode: 200, headers: {} } }));
    const handler = partitionSimulator(buckets)(next, {} as never);
    const request = (operation: string, body: string) => ({
      input: {},
      request: { headers: { 'x-amz-target': `DynamoDB_20120810.${operation}` }, body },
    });
    await handler(request('Scan', JSON.stringify({ TableName: T })));
    await handler(request('GetItem', '{"TableName": "cut sh'));
    await handler(request('TransactWriteItems', JSON.stringify({ TransactItems: 'not a list' })));
    expect(next).toHaveBeenCalledTimes(3);
  });

  test('a batch wholly on empty partitions: ProvisionedThroughputExceededException, as DynamoDB refuses it', async () => {
    const { db, buckets, received } = simulated();
    buckets.charge([read('WS#acme-corp', 20)]);
    const keysOfMine = [keys.label(WS, 'bug'), keys.label(WS, 'feature')];
    await expect(db.send(new BatchGetCommand({ RequestItems: { [T]: { Keys: keysOfMine } } }))).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    expect(received).toEqual([]);
  });
});
