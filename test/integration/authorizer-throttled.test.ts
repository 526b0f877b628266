import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { AUTHORIZER_UNAVAILABLE } from '#http/problem';
import { call, type Response } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';

/**
 * No cliff at the authorizer: with every request's token read going to DynamoDB (no authorizer cache)
 * and its partition throttled (the partition simulator), a token read that stays refused through the
 * SDK's retries is a 503 with Retry-After, as API Gateway's AUTHORIZER_FAILURE response of the stack
 * answers, not a 500.
 */
let api: LocalApi;
let dataDir: string;
let token: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pls-authorizer-'));
  api = await startLocalApi({
    sharing: localStack().dynamodbPort,
    env: { DATA_DIR: dataDir, AUTHORIZER_CACHE_TTL_SECONDS: '0', DYNAMODB_PARTITION_LIMITS: 'rcu=1,wcu=1,burst=1' },
  });
  token = /TOKEN=(\S+)/.exec(api.output())![1]!;
});

afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a token read throttled past its retries answers 503 with Retry-After, never 500', async () => {
  const answers: Response[] = [];
  const reader = async () => {
    for (let i = 0; i < 2; i++) answers.push(await call('GET', '/projects?company_slug=acme-corp', { base: api.url, token }));
  };
  await Promise.all(Array.from({ length: 12 }, reader));
  const wrong = answers.filter((r) => !(r.status === 200 || (r.status === 503 && r.headers.has('retry-after'))));
  expect(wrong.map((r) => `${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
  // Some were refused at the authorizer (so this test can fail), in the service's problem+json.
  const atAuthorizer = answers.filter((r) => r.status === 503 && r.body?.detail === AUTHORIZER_UNAVAILABLE.detail);
  expect(atAuthorizer.length).toBeGreaterThan(0);
  expect(atAuthorizer[0]!.headers.get('content-type')).toBe('application/problem+json');
  expect(atAuthorizer[0]!.body).toMatchObject({ status: 503, code: 'service_unavailable' });
});
