import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanKeysCommand,
  GetUsagePlansCommand,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RATE_LIMIT, usageKeyOf } from '#domain/tokens';
import { repoRoot } from '#lib/paths';
import { methodThrottles, throttleMap } from '#lib/aws/methodThrottles';
import { addTokenKey, deployedApi, placeTokenKey, removeTokenKey, sweepTokenKeys, type DeployedApi } from '#lib/aws/usagePlans';

/** The token CLI's side of deployed rate limits, against a mocked API Gateway (no account needed). */
const gateway = mockClient(APIGatewayClient);
const api = (): DeployedApi => ({ restApiId: 'abc123', stage: 'dev', client: new APIGatewayClient({ region: 'eu-west-1' }) });

beforeEach(() => gateway.reset());

describe('a new token gets its API key in the plan of its limits', () => {
  test('the default plan the stack made is found by name (on a later page) and used', async () => {
    gateway
      .on(GetUsagePlansCommand, { position: undefined })
      .resolves({ items: [{ id: 'p-other', name: 'someone-elses-plan' }], position: 'next' })
      .on(GetUsagePlansCommand, { position: 'next' })
      .resolves({ items: [{ id: 'p-default', name: 'pls-abc123-dev-100rps-200burst' }] });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k-1' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({});
    await addTokenKey(api(), 'tokenid000000001', { rate: 100, burst: 200 });
    expect(gateway.commandCalls(CreateUsagePlanCommand)).toHaveLength(0);
    expect(gateway.commandCalls(CreateApiKeyCommand)[0]!.args[0].input).toMatchObject({
      name: 'pls-token-tokenid000000001',
      value: usageKeyOf('tokenid000000001'),
      enabled: true,
    });
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({
      usagePlanId: 'p-default',
      keyId: 'k-1',
      keyType: 'API_KEY',
    });
  });

  test('other limits get a plan of their own on the stage, made once', async () => {
    gateway.on(GetUsagePlansCommand).resolves({ items: [] });
    gateway.on(CreateUsagePlanCommand).resolves({ id: 'p-new' });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k-2' });
    await addTokenKey(api(), 'tokenid000000002', { rate: 2.5, burst: 5 });
    expect(gateway.commandCalls(CreateUsagePlanCommand)[0]!.args[0].input).toMatchObject({
      name: 'pls-abc123-dev-2.5rps-5burst',
      apiStages: [{ apiId: 'abc123', stage: 'dev', throttle: throttleMap(methodThrottles({ rate: 2.5, burst: 5 })) }],
      throttle: { rateLimit: 2.5, burstLimit: 5 },
    });
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input.usagePlanId).toBe('p-new');
  });

  test("a plan's heavy methods carry their own limits; one made before they had them is brought to them, and one that has them is left", async () => {
    const limit = { rate: 1_000, burst: 2_000 };
    const throttles = methodThrottles(limit);
    // A token of these limits is far above recover's own: it is among the methods limited.
    expect(throttles.find((t) => t.path === '/webhooks/{id}/recover')).toMatchObject({ method: 'POST', rateLimit: 1 });
    const stage = { apiId: 'abc123', stage: 'dev' };
    gateway.on(GetUsagePlansCommand).resolves({ items: [{ id: 'p-old', name: 'pls-abc123-dev-1000rps-2000burst', apiStages: [stage] }] });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k-3' });
    await addTokenKey(api(), 'tokenid000000003', limit);
    const patched = gateway.commandCalls(UpdateUsagePlanCommand)[0]!.args[0].input;
    expect(patched.usagePlanId).toBe('p-old');
    expect(patched.patchOperations).toHaveLength(2 * throttles.length);
    expect(patched.patchOperations).toContainEqual({
      op: 'replace',
      path: '/apiStages/abc123:dev/throttle/~1webhooks~1{id}~1recover/POST/rateLimit',
      value: '1',
    });
    gateway.reset();
    gateway.on(GetUsagePlansCommand).resolves({
      items: [{ id: 'p-kept', name: 'pls-abc123-dev-1000rps-2000burst', apiStages: [{ ...stage, throttle: throttleMap(throttles) }] }],
    });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k-4' });
    await addTokenKey(api(), 'tokenid000000004', limit);
    expect(gateway.commandCalls(UpdateUsagePlanCommand)).toHaveLength(0);
  });
});

test('revoking removes the key of that token only (a name query matches prefixes)', async () => {
  gateway.on(GetApiKeysCommand).resolves({
    items: [
      { id: 'k-1', name: 'pls-token-tokenid000000001' },
      { id: 'k-9', name: 'pls-token-tokenid0000000019' },
    ],
  });
  expect(await removeTokenKey(api(), 'tokenid000000001')).toBe(true);
  expect(gateway.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input.apiKey)).toEqual(['k-1']);
  gateway.on(GetApiKeysCommand).resolves({ items: [] });
  expect(await removeTokenKey(api(), 'tokenid000000003')).toBe(false);
});

test('the deployed API is named by REST_API_ID and STAGE_NAME, both or nothing', () => {
  expect(deployedApi({ REST_API_ID: 'abc', STAGE_NAME: 'dev' })).toMatchObject({ restApiId: 'abc', stage: 'dev' });
  expect(deployedApi({ REST_API_ID: 'abc' })).toBeUndefined();
  expect(deployedApi({ STAGE_NAME: ' ', REST_API_ID: 'abc' })).toBeUndefined();
});

describe('changing limits moves the key, never dropping it for longer than the move', () => {
  const plans = [
    { id: 'p-default', name: 'pls-abc123-dev-100rps-200burst' },
    { id: 'p-slow', name: 'pls-abc123-dev-5rps-10burst' },
  ];
  const withKeyIn = (planIds: string[]) => {
    gateway.on(GetUsagePlansCommand).callsFake((input: { keyId?: string }) => ({
      items: input.keyId ? plans.filter((p) => planIds.includes(p.id)) : plans,
    }));
    gateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-1', name: 'pls-token-tokenid000000001' }] });
  };

  test('a key already in the plan of its limits is left alone', async () => {
    withKeyIn(['p-slow']);
    expect(await placeTokenKey(api(), 'tokenid000000001', { rate: 5, burst: 10 })).toBe('unchanged');
    expect(gateway.commandCalls(DeleteUsagePlanKeyCommand)).toHaveLength(0);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)).toHaveLength(0);
    expect(gateway.commandCalls(DeleteApiKeyCommand)).toHaveLength(0);
  });

  test('a key in another plan leaves it and joins the new one, keeping its id and value', async () => {
    withKeyIn(['p-default']);
    gateway.on(CreateUsagePlanKeyCommand).resolves({});
    expect(await placeTokenKey(api(), 'tokenid000000001', { rate: 5, burst: 10 })).toBe('moved');
    expect(gateway.commandCalls(DeleteUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([
      { usagePlanId: 'p-default', keyId: 'k-1' },
    ]);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([
      { usagePlanId: 'p-slow', keyId: 'k-1', keyType: 'API_KEY' },
    ]);
    expect(gateway.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
    expect(gateway.commandCalls(DeleteApiKeyCommand)).toHaveLength(0);
  });

  test('when joining the new plan fails, the key goes back to the plan it left and the error stands', async () => {
    withKeyIn(['p-default']);
    gateway
      .on(CreateUsagePlanKeyCommand, { usagePlanId: 'p-slow' })
      .rejects(new Error('TooManyRequestsException'))
      .on(CreateUsagePlanKeyCommand, { usagePlanId: 'p-default' })
      .resolves({});
    await expect(placeTokenKey(api(), 'tokenid000000001', { rate: 5, burst: 10 })).rejects.toThrow('TooManyRequests');
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input.usagePlanId)).toEqual(['p-slow', 'p-default']);
  });

  test('a token without a key (made before rate limits) gets one', async () => {
    gateway.on(GetUsagePlansCommand).resolves({ items: plans });
    gateway.on(GetApiKeysCommand).resolves({ items: [] });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'k-new' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({});
    expect(await placeTokenKey(api(), 'tokenid000000002', { rate: 100, burst: 200 })).toBe('created');
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({
      usagePlanId: 'p-default',
      keyId: 'k-new',
      keyType: 'API_KEY',
    });
  });
});

describe("sweeping a stage's keys (API Gateway holds at most 10,000 per account and Region)", () => {
  test("removes the keys of tokens no longer usable, in this stage's plans only, over every page", async () => {
    gateway.on(GetUsagePlansCommand).resolves({
      items: [
        { id: 'p-default', name: 'pls-abc123-dev-100rps-200burst' },
        { id: 'p-slow', name: 'pls-abc123-dev-5rps-10burst' },
        // Another stage's plan, and another API's: their keys are not this stage's to judge.
        { id: 'p-prod', name: 'pls-abc123-prod-100rps-200burst' },
        { id: 'p-other', name: 'pls-zzz999-dev-100rps-200burst' },
      ],
    });
    gateway
      .on(GetUsagePlanKeysCommand, { usagePlanId: 'p-default', position: undefined })
      .resolves({
        items: [
          { id: 'k-active', name: 'pls-token-activetoken00001' },
          { id: 'k-expired', name: 'pls-token-expiredtoken0001' },
        ],
        position: 'next',
      })
      .on(GetUsagePlanKeysCommand, { usagePlanId: 'p-default', position: 'next' })
      .resolves({ items: [{ id: 'k-orphan', name: 'pls-token-unknowntoken0001' }] })
      .on(GetUsagePlanKeysCommand, { usagePlanId: 'p-slow' })
      .resolves({
        items: [
          { id: 'k-revoked', name: 'pls-token-revokedtoken0001' },
          { id: 'k-foreign', name: 'someone-elses-key' },
        ],
      });
    gateway.on(DeleteApiKeyCommand).resolves({});
    gateway.on(GetUsagePlanKeysCommand, { usagePlanId: 'p-default', position: 'next' }).resolves({
      items: [
        { id: 'k-orphan', name: 'pls-token-unknowntoken0001' },
        // Made while the sweep ran: not in the list read first, but usable when asked again.
        { id: 'k-new', name: 'pls-token-brandnewtoken001' },
      ],
    });
    const listed = new Set(['activetoken00001']);
    const confirmed: string[] = [];
    const confirm = async (id: string) => {
      confirmed.push(id);
      return id === 'brandnewtoken001';
    };
    const outcome = await sweepTokenKeys(api(), (id) => listed.has(id), confirm, 0);
    const deleted = gateway.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input.apiKey);
    expect(deleted.sort()).toEqual(['k-expired', 'k-orphan', 'k-revoked']);
    expect(outcome).toEqual({ removed: 3, kept: 3 });
    expect(confirmed.sort()).toEqual(['brandnewtoken001', 'expiredtoken0001', 'revokedtoken0001', 'unknowntoken0001']);
    const looked = gateway.commandCalls(GetUsagePlanKeysCommand).map((c) => c.args[0].input.usagePlanId);
    expect([...new Set(looked)].sort()).toEqual(['p-default', 'p-slow']);
  });
});

test("a method's own limit: what a third of a partition allows at its worst, never below twice its share of ordinary traffic, at least 1 a second", () => {
  const figures = {
    'GET /heavy': { read: 500, write: 0, share: 0 }, // 1,000 read units a second / 500 = 2
    'POST /writes': { read: 0, write: 3_330, share: 0 }, // 333 / 3,330 = 0.1: at least 1
    'GET /ordinary': { read: 200, write: 0, share: 0.2 }, // 5 at its worst, but 0.2 x 100 x 2 = 40 ordinary
    'GET /light': { read: 2, write: 0, share: 0.1 }, // 500 at its worst: the token's 100 holds it, no limit of its own
  };
  expect(methodThrottles({ rate: 100, burst: 200 }, figures)).toEqual([
    { path: '/heavy', method: 'GET', rateLimit: 2, burstLimit: 4 },
    { path: '/writes', method: 'POST', rateLimit: 1, burstLimit: 2 },
    { path: '/ordinary', method: 'GET', rateLimit: 40, burstLimit: 80 },
  ]);
  // A burst never above the token's own.
  expect(methodThrottles({ rate: 3, burst: 3 }, figures)).toEqual([
    { path: '/heavy', method: 'GET', rateLimit: 2, burstLimit: 3 },
    { path: '/writes', method: 'POST', rateLimit: 1, burstLimit: 2 },
  ]);
});

test('the methods limits the docs quote are those the default limits derive', () => {
  const rateOf = (path: string, method: string) =>
    methodThrottles(DEFAULT_RATE_LIMIT).find((t) => t.path === path && t.method === method)?.rateLimit;
  const operations = readFileSync(join(repoRoot, 'docs', 'operations.md'), 'utf8').replace(/\s+/g, ' ');
  const api = readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8').replace(/\s+/g, ' ');
  const recover = rateOf('/webhooks/{id}/recover', 'POST');
  expect(operations).toContain(`\`POST /webhooks/{id}/recover\` ${recover}/s (burst ${2 * recover!})`);
  for (const [quoted, path, method, name] of [
    ['GET /webhooks/{id}/deliveries', '/webhooks/{id}/deliveries', 'GET', 'the deliveries log'],
    ['POST /projects/{slug}/duplicate', '/projects/{slug}/duplicate', 'POST', 'duplicate'],
    ['GET /activities', '/activities', 'GET', 'the history'],
    ['GET /search', '/search', 'GET', 'search'],
    ['POST .../attach', '/projects-labels/{slug}/attach', 'POST', 'attach'],
  ] as const) {
    expect(operations).toContain(`\`${quoted}\` ${rateOf(path, method)}/s`);
    expect(api).toMatch(new RegExp(`${name} ${rateOf(path, method)}\\b`));
  }
  expect(api).toContain(`recover ${recover} per second`);
});
