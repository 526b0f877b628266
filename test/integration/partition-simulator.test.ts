import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureTable } from '#local/database';
import { PartitionBuckets } from '#local/partitions/buckets';
import { sideReader } from '#local/partitions/images';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import { keys } from '#store/keys';
import { call, honouringRetryAfter, type Response } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { runTool } from '#support/tools';

/**
 * The partition simulator (DYNAMODB_PARTITION_LIMITS, docs/local.md): a stack of this file's own with
 * limits far below DynamoDB's, one workspace driven past them. No cliff: every answer is 2xx, or 503
 * with Retry-After (never another 5xx, never a dropped connection); what was acknowledged is there
 * afterwards; a workspace beside it, within its own limits, answers 2xx all along.
 */
const HOT = 'acme-corp';
const NEIGHBOUR = 'quiet-neighbour';
const OPERATIONS = 48;
const IN_FLIGHT = 16;
/** What DynamoDB (and so the simulator) says of a hot partition; the store's own word when a batch stays unprocessed. */
const THROTTLING = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'StoreUnavailable'];

let api: LocalApi;
let dataDir: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pls-partitions-'));
  api = await startLocalApi({
    sharing: localStack().dynamodbPort,
    env: { DYNAMODB_PARTITION_LIMITS: 'rcu=20,wcu=10,burst=1', DATA_DIR: dataDir, LOG_FILE: join(dataDir, 'logs.jsonl') },
  });
  expect(api.output()).toContain('Partition simulator on (DYNAMODB_PARTITION_LIMITS)');
  // acme-corp's token is the one npm start made (100 requests a second, 200 of burst: more than this
  // file sends, so what refuses a request here is the database, never the gateway); the neighbour's its own.
  tokens[HOT] = /TOKEN=(\S+)/.exec(api.output())![1]!;
  const created = await runTool(
    'bin/token.ts',
    ['create', '--workspace', NEIGHBOUR, '--name', 'Calm', '--username', 'calm', '--all-scopes', '--no-expiry', '--json'],
    {
      DATA_DIR: dataDir,
      ...api.cliEnv,
    },
  );
  tokens[NEIGHBOUR] = (JSON.parse(created.stdout) as { token: string }).token;
});

afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A request to this file's stack; a dropped connection is an answer too (status 0), never a throw. */
async function send(ws: string, method: string, path: string, body?: unknown): Promise<Response> {
  const url = `${path}${path.includes('?') ? '&' : '?'}company_slug=${ws}`;
  try {
    return await call(method, url, { base: api.url, token: tokens[ws]!, ...(body === undefined ? {} : { body }) });
  } catch (error) {
    if (String(error).includes('openapi.json')) throw error;
    return { status: 0, headers: new Headers(), body: undefined, text: String(error) };
  }
}

/** Reads as a client told Retry-After would (the workspace's partitions refill meanwhile). */
const readPatiently = (ws: string, path: string) => honouringRetryAfter(() => send(ws, 'GET', path), 21);

const isFine = (res: Response) => (res.status >= 200 && res.status < 300) || (res.status === 503 && res.headers.has('retry-after'));

test('a workspace driven past its partitions gets 2xx or 503 with Retry-After, loses nothing acknowledged, and its neighbour is not hurt', async () => {
  const project = await send(HOT, 'POST', '/projects', { name: 'Hot Project' });
  expect(project.status).toBe(201);
  const slug = project.body.data.slug as string;

  // The hot workspace: label creates (writes of its partition), and a project read in four, IN_FLIGHT at a time.
  const answers: { op: string; res: Response }[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < OPERATIONS; i = next++) {
      if (i % 4 !== 3)
        answers.push({
          op: `create label ${i}`,
          res: await send(HOT, 'POST', '/projects-labels', { title: `Load ${i}`, color: '00FF00' }),
        });
      else answers.push({ op: `read project`, res: await send(HOT, 'GET', `/projects/${slug}`) });
    }
  };
  // The neighbour meanwhile, well within its own limits: a read every 100 ms, a label create every second.
  const neighbour: { op: string; res: Response }[] = [];
  let storming = true;
  const quiet = async () => {
    for (let i = 0; storming; i++) {
      if (i % 10 === 0)
        neighbour.push({
          op: `create label ${i}`,
          res: await send(NEIGHBOUR, 'POST', '/projects-labels', { title: `Calm ${i}`, color: '0000FF' }),
        });
      else neighbour.push({ op: 'list labels', res: await send(NEIGHBOUR, 'GET', '/projects-labels') });
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const neighbourDone = quiet();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  storming = false;
  await neighbourDone;

  const statuses = answers.map(({ res }) => res.status);
  console.log(
    `partition simulator: ${OPERATIONS} operations on ${HOT}: ${statuses.filter((s) => s < 300).length} 2xx, ${statuses.filter((s) => s === 503).length} 503; ${neighbour.length} on ${NEIGHBOUR}, all ${[...new Set(neighbour.map(({ res }) => res.status))].join(', ')}`,
  );
  expect(answers.filter(({ res }) => !isFine(res)).map(({ op, res }) => `${op}: ${res.status} ${res.text.slice(0, 200)}`)).toEqual([]);
  expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
  expect(neighbour.filter(({ res }) => res.status >= 300).map(({ op, res }) => `${op}: ${res.status} ${res.text.slice(0, 200)}`)).toEqual(
    [],
  );

  // The 503s are the simulator's refusals, through the SDK's retries and the store's mapping.
  const lines = readFileSync(join(dataDir, 'logs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { message: string; error?: { name: string } });
  const refused = lines.filter((l) => l.message === 'request refused: database busy');
  expect(refused.length).toBe(statuses.filter((s) => s === 503).length);
  expect([...new Set(refused.map((l) => l.error?.name))].filter((name) => !THROTTLING.includes(name!))).toEqual([]);
  expect(lines.filter((l) => l.message === 'request failed')).toEqual([]);

  // Every label acknowledged (201) is there.
  const acknowledged = answers.filter(({ res }) => res.status === 201).map(({ res }) => res.body.data.slug as string);
  const listed = await readPatiently(HOT, '/projects-labels?limit=100');
  expect(listed.status).toBe(200);
  const slugs = new Set((listed.body.data as { slug: string }[]).map((l) => l.slug));
  expect(acknowledged.filter((s) => !slugs.has(s))).toEqual([]);
});

test('on DynamoDB Local, a batch partly on an empty partition is written in part and answers the rest unprocessed', async () => {
  // A database of its own on the stack's DynamoDB Local (an access key of its own), and two clients:
  // one through a simulator whose clock stands still (nothing refills), one to look at what was written.
  const T = 'partition-simulator-batches';
  const client = () =>
    new DynamoDBClient({
      endpoint: `http://127.0.0.1:${api.dynamodbPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'partitionBatches', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  const plainClient = client();
  await ensureTable(plainClient, T);
  const plain = DynamoDBDocumentClient.from(plainClient);
  const simulated = DynamoDBDocumentClient.from(client());
  simulated.middlewareStack.add(
    partitionSimulator(new PartitionBuckets({ rcu: 2, wcu: 2, burstSeconds: 1, split: 1 }, () => 0)),
    SIMULATOR_MIDDLEWARE,
  );
  const put = (PK: string, SK: string) => ({ PutRequest: { Item: { PK, SK } } });

  // Three writes of one unit on a partition of two: all go (the bucket had units), and leave it in debt.
  const first = await simulated.send(
    new BatchWriteCommand({ RequestItems: { [T]: [put('HOT', '1'), put('HOT', '2'), put('HOT', '3'), put('COOL', '1')] } }),
  );
  expect(first.UnprocessedItems).toEqual({});
  const second = await simulated.send(new BatchWriteCommand({ RequestItems: { [T]: [put('HOT', '4'), put('COOL', '2')] } }));
  expect(second.UnprocessedItems).toEqual({ [T]: [put('HOT', '4')] });
  await expect(simulated.send(new BatchWriteCommand({ RequestItems: { [T]: [put('HOT', '5')] } }))).rejects.toMatchObject({
    name: 'ProvisionedThroughputExceededException',
  });
  const keysOf = (...pairs: [string, string][]) => pairs.map(([PK, SK]) => ({ PK, SK }));
  const wanted = keysOf(['HOT', '1'], ['HOT', '2'], ['HOT', '3'], ['HOT', '4'], ['HOT', '5'], ['COOL', '1'], ['COOL', '2']);
  const stored = await plain.send(new BatchGetCommand({ RequestItems: { [T]: { Keys: wanted, ConsistentRead: true } } }));
  const sorted = (items: Record<string, unknown>[] = []) => items.map((i) => `${i.PK}#${i.SK}`).sort();
  expect(sorted(stored.Responses?.[T])).toEqual(['COOL#1', 'COOL#2', 'HOT#1', 'HOT#2', 'HOT#3']);

  // Reads the same way: three strongly consistent reads on a partition of two units, then its keys left unprocessed.
  const read = await simulated.send(new BatchGetCommand({ RequestItems: { [T]: { Keys: wanted.slice(0, 3), ConsistentRead: true } } }));
  expect(sorted(read.Responses?.[T])).toEqual(['HOT#1', 'HOT#2', 'HOT#3']);
  const again = await simulated.send(
    new BatchGetCommand({ RequestItems: { [T]: { Keys: keysOf(['HOT', '1'], ['COOL', '1']), ConsistentRead: true } } }),
  );
  expect(sorted(again.Responses?.[T])).toEqual(['COOL#1']);
  expect(again.UnprocessedKeys).toEqual({ [T]: { Keys: keysOf(['HOT', '1']), ConsistentRead: true } });
  plain.destroy();
  simulated.destroy();
});

test('on DynamoDB Local, a write is charged as DynamoDB bills it: a counter of an indexed item rewrites its index entries, and a hot index refuses it', async () => {
  // The items' images are read beside each write (lib/local/partitions/images.ts), in the database of the write's own access key.
  const T = 'partition-simulator-images';
  const client = () =>
    new DynamoDBClient({
      endpoint: `http://127.0.0.1:${api.dynamodbPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'partitionImages', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  const plainClient = client();
  await ensureTable(plainClient, T);
  const plain = DynamoDBDocumentClient.from(plainClient);
  const buckets = new PartitionBuckets({ rcu: 100, wcu: 20, burstSeconds: 1, split: 1 }, () => 0);
  const simulated = DynamoDBDocumentClient.from(client());
  simulated.middlewareStack.add(partitionSimulator(buckets, sideReader()), SIMULATOR_MIDDLEWARE);
  const ws = 'images-corp';
  const project = {
    ...keys.project(ws, 'big'),
    ...keys.projectStatusIndex(ws, 'active', 'big'),
    ...keys.projectNameIndex(ws, 'big'),
    type: 'project',
    description: 'd'.repeat(2500),
    tasks_count: 0,
  };
  await plain.send(new PutCommand({ TableName: T, Item: project }));
  const left = (key: string, index?: string) => buckets.available({ table: T, key, ...(index ? { index } : {}) }, 'write');
  const status = keys.projectStatusPartition(ws, 'active');
  const names = keys.projectNamePartition(ws);

  // A counter: the request names no index key, yet the item's entry in both indexes carries it (3 units each, as the item).
  const count = () =>
    simulated.send(
      new UpdateCommand({
        TableName: T,
        Key: keys.project(ws, 'big'),
        UpdateExpression: 'ADD tasks_count :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  await count();
  expect([left(keys.workspace(ws)), left(status, 'GSI1'), left(names, 'GSI2')]).toEqual([17, 17, 17]);
  // What no index carries differently writes none: the same value again rewrites the item alone.
  await simulated.send(
    new UpdateCommand({
      TableName: T,
      Key: keys.project(ws, 'big'),
      UpdateExpression: 'SET #t = :t',
      ExpressionAttributeNames: { '#t': 'type' },
      ExpressionAttributeValues: { ':t': 'project' },
    }),
  );
  expect([left(keys.workspace(ws)), left(status, 'GSI1'), left(names, 'GSI2')]).toEqual([14, 17, 17]);
  // A move of its status: the old entry removed, the new one written, each on its own partition.
  const archived = keys.projectStatusPartition(ws, 'archived');
  await simulated.send(
    new UpdateCommand({
      TableName: T,
      Key: keys.project(ws, 'big'),
      UpdateExpression: 'SET GSI1PK = :p',
      ExpressionAttributeValues: { ':p': archived },
    }),
  );
  expect([left(status, 'GSI1'), left(archived, 'GSI1'), left(names, 'GSI2')]).toEqual([14, 17, 14]);

  // The name index's partition in debt: the next counter is refused there, though its request names no index.
  buckets.charge([{ table: T, index: 'GSI2', key: names, capacity: 'write', units: 20 }]);
  await expect(count()).rejects.toMatchObject({
    name: 'ProvisionedThroughputExceededException',
    message: expect.stringContaining('of index GSI2'),
  });
  const { Item } = await plain.send(new GetCommand({ TableName: T, Key: keys.project(ws, 'big'), ConsistentRead: true }));
  expect(Item?.tasks_count).toBe(1);
  // So is its delete, which would remove its entry there.
  await expect(simulated.send(new DeleteCommand({ TableName: T, Key: keys.project(ws, 'big') }))).rejects.toMatchObject({
    name: 'ProvisionedThroughputExceededException',
  });
  plain.destroy();
  simulated.destroy();
});
