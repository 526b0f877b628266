import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import routeLoads from '../../functions/commons/domain/routeLoads.json' with { type: 'json' };
import { placeOf } from '#domain/workspaceRateLimits';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { call, type Response } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { runTool } from '#support/tools';

/**
 * Workspace limits (WORKSPACE_RATE_LIMITS, domain/workspaceRateLimits.ts) through the local API, as a client meets them:
 * a stack of this file's own whose workspaces may draw 10 write units a second of any one partition (a label
 * create writes 3 of its workspace's tally). A flood of label creates is answered 201 or 429 with
 * Retry-After, and what was refused wrote nothing; a neighbour's creates, and the flooded workspace's reads of
 * partitions it is not over, go on; what another workspace's token and invalid requests send counts for nothing.
 * A flood of one project's reads is refused while another project's reads (in another bucket) go on.
 */
const HOT = 'acme-corp';
const NEIGHBOUR = 'quiet-neighbour';
const FLOOD = 40;
const IN_FLIGHT = 8;

let api: LocalApi;
let dataDir: string;
const tokens: Record<string, string> = {};
let table: DynamoDBDocumentClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pls-limits-'));
  api = await startLocalApi({ sharing: localStack().dynamodbPort, env: { WORKSPACE_RATE_LIMITS: 'rcu=30,wcu=10', DATA_DIR: dataDir } });
  tokens[HOT] = /TOKEN=(\S+)/.exec(api.output())![1]!;
  const created = await runTool(
    'bin/token.ts',
    ['create', '--workspace', NEIGHBOUR, '--name', 'Calm', '--username', 'calm', '--all-scopes', '--no-expiry', '--json'],
    { DATA_DIR: dataDir, ...api.cliEnv },
  );
  tokens[NEIGHBOUR] = (JSON.parse(created.stdout) as { token: string }).token;
  table = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: `http://127.0.0.1:${api.dynamodbPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: api.cliEnv.DYNAMODB_LOCAL_ACCESS_KEY!, secretAccessKey: 'local' },
    }),
  );
});

afterAll(async () => {
  table?.destroy();
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const send = (ws: string, method: string, path: string, opts: { body?: unknown; as?: string } = {}): Promise<Response> =>
  call(method, `${path}${path.includes('?') ? '&' : '?'}company_slug=${ws}`, {
    base: api.url,
    token: tokens[opts.as ?? ws]!,
    // A 429 is the answer here, not waited out.
    tooMany: 'answer',
    ...(opts.body === undefined ? {} : { body: opts.body }),
  });

/** The workspace's counts: its items of each second. */
async function countsOf(ws: string): Promise<Record<string, unknown>[]> {
  const { Items } = await table.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.workspaceLoad(ws, 0).PK },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

test('a workspace over its limits is answered 429 with Retry-After, and what was refused wrote nothing; others are not hurt', async () => {
  // Another workspace's token, and requests that fail validation, draw nothing: they count for nothing.
  for (let i = 0; i < 10; i++) {
    expect((await send(HOT, 'POST', '/projects-labels', { body: { title: `Stranger ${i}`, color: '00FF00' }, as: NEIGHBOUR })).status).toBe(
      403,
    );
    expect((await send(HOT, 'POST', '/projects-labels', { body: { title: `Bad ${i}`, color: 'not a colour' } })).status).toBe(422);
  }
  expect(await countsOf(HOT)).toEqual([]);

  const answers: Response[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < FLOOD; i = next++)
      answers.push(await send(HOT, 'POST', '/projects-labels', { body: { title: `Flood ${i}`, color: '00FF00' } }));
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

  const refused = answers.filter((r) => r.status === 429);
  const made = answers.filter((r) => r.status === 201);
  expect(made.length + refused.length).toBe(FLOOD);
  expect(made.length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({ status: 429, error_code: 'RATE_LIMIT_EXCEEDED' });
    expect(r.body.detail).toContain(HOT);
  }
  // Nothing refused was written: the workspace holds the labels answered 201, and no other.
  const labels = await send(HOT, 'GET', '/projects-labels');
  expect(labels.status).toBe(200);
  expect((labels.body.data as { title: string }[]).map((l) => l.title).sort()).toEqual(made.map((r) => r.body.data.title as string).sort());

  // Reads of what the flood wrote (the copies' read units are far under their limit), and a neighbour's creates, go in.
  const neighbour = [];
  for (let i = 0; i < 3; i++)
    neighbour.push(await send(NEIGHBOUR, 'POST', '/projects-labels', { body: { title: `Calm ${i}`, color: '0000FF' } }));
  expect(neighbour.map((r) => r.status)).toEqual([201, 201, 201]);
  expect((await send(HOT, 'GET', '/projects')).status).toBe(200);

  // The counts: items of their own per second, which expire.
  const counts = await countsOf(HOT);
  expect(counts.length).toBeGreaterThan(0);
  for (const item of counts) expect(item).toMatchObject({ type: 'workspace_load', ttl: expect.any(Number) });
});

test("a flood of one project's reads is refused, and another project's reads go on: projects are counted apart", async () => {
  // A project's read draws a read unit of its kept stats (STATS#<ws>#<slug>): 30 a second of one project is its limit.
  const stats = Object.entries(routeLoads.slots).find(([, name]) => name === 'STATS#<ws>#<slug>')![0];
  const bucket = (slug: string) => placeOf(stats, 'project', { project: slug });
  // In the neighbour's workspace (the other test's flood keeps its own busy); creates wait out the limits' 429s.
  const ws = NEIGHBOUR;
  const make = async (name: string) =>
    (await call('POST', `/projects?company_slug=${ws}`, { base: api.url, token: tokens[ws]!, body: { name } })).body.data.slug as string;
  const hot = await make('Read flood');
  let apart = '';
  for (let i = 0; !apart; i++) {
    const made = await make(`Apart ${i}`);
    if (bucket(made) !== bucket(hot)) apart = made;
  }
  const answers: Response[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < 150; i = next++) answers.push(await send(ws, 'GET', `/projects/${hot}`));
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(answers.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
  // Counted apart: the other project's reads meet only their own bucket (the workspace's other partitions are far under).
  const others = [];
  for (let i = 0; i < 5; i++) others.push((await send(ws, 'GET', `/projects/${apart}`)).status);
  expect(others).toEqual([200, 200, 200, 200, 200]);
  // ... while the flooded project is still refused some (its rate is still known).
  const again = [];
  for (let i = 0; i < 20; i++) again.push((await send(ws, 'GET', `/projects/${hot}`)).status);
  expect(again).toContain(429);
});
