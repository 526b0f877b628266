import { describe, expect, test } from 'vitest';
import { usageKeyOf, verifyToken } from '#domain/tokens';
import { call, tokenFor, uniqueWorkspace } from '#support/api';
import { handler as authorizer } from '../../functions/authorizer/handler.ts';
import { lambdaContext } from '#local/lambdaEvents';
import { RateLimiter } from '#local/rateLimits';
import { methodThrottles } from '#lib/aws/methodThrottles';

/**
 * Per-token rate limits, locally: the gateway holds a token bucket per API key (the authorizer's
 * usageIdentifierKey) with the token's rate and burst, as a usage plan does deployed.
 */
const list = (ws: string, token: string) => call('GET', `/projects?company_slug=${ws}`, { token, tooMany: 'answer' });

describe('the local gateway throttles each token at its own limits', () => {
  test('a token over its burst gets 429 problems with Retry-After while another token is unaffected', async () => {
    const ws = uniqueWorkspace('rate');
    const slow = await tokenFor(ws, { limits: { rate: 1, burst: 3 } });
    const other = await tokenFor(ws, { limits: { rate: 1, burst: 3 } });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await list(ws, slow));
    const statuses = answers.map((a) => a.status);
    // Three from the full bucket; at most one more refilled meanwhile (1 per second); then refused.
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', error_code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    // The other token, same workspace, same owner: its own bucket.
    for (let i = 0; i < 3; i++) expect((await list(ws, other)).status).toBe(200);
    // After Retry-After, the throttled token is let in again.
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers.get('retry-after')) * 1000 + 100));
    expect((await list(ws, slow)).status).toBe(200);
  });

  test("a heavy method's own limit refuses that route alone: the token's other routes go on", async () => {
    const ws = uniqueWorkspace('rate');
    const token = await tokenFor(ws, { limits: { rate: 100, burst: 200 } });
    const own = methodThrottles({ rate: 100, burst: 200 }).find((t) => t.path === '/webhooks/{id}/recover')!;
    expect(own).toMatchObject({ rateLimit: 1, burstLimit: 2 });
    // Recovering a webhook that does not exist: each request counts, answered past the gateway.
    const recover = () =>
      call('POST', `/webhooks/wh_${'0'.repeat(24)}/recover?company_slug=${ws}`, {
        token,
        body: { since: '2026-01-01T00:00:00Z' },
        tooMany: 'answer',
      });
    const sent = 10;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: sent }, recover));
    const seconds = (performance.now() - started) / 1000;
    // The bucket lets through its burst, plus what its rate refilled while the requests were in flight.
    const through = answers.filter((a) => a.status !== 429);
    // What passed the gateway is the route's own answer: no such webhook.
    expect(through.map((a) => a.status)).toEqual(through.map(() => 404));
    expect(through.length).toBeGreaterThanOrEqual(own.burstLimit);
    expect(through.length).toBeLessThanOrEqual(own.burstLimit + Math.floor(own.rateLimit * seconds));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(sent - through.length);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body).toMatchObject({ code: 'rate_limited' });
    // The token's own bucket took only what went through: its other routes answer at once.
    expect((await list(ws, token)).status).toBe(200);
  });

  test('concurrent requests cannot slip past the burst', async () => {
    const ws = uniqueWorkspace('rate');
    const token = await tokenFor(ws, { limits: { rate: 0.5, burst: 5 } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => list(ws, token)));
    expect(answers.filter((a) => a.status === 200).length).toBe(5);
    expect(answers.filter((a) => a.status === 429).length).toBe(15);
  });
});

describe('the authorizer names the API key of the token and its limits', () => {
  test("usageIdentifierKey is the token's key; the context carries its rate and burst", async () => {
    const ws = uniqueWorkspace('rate');
    const token = await tokenFor(ws, { limits: { rate: 2.5, burst: 7 } });
    const principal = await verifyToken(token);
    const policy = await authorizer(
      { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: 'arn:aws:execute-api:eu-west-1:1:api/dev/GET/projects' },
      lambdaContext('authorizer'),
    );
    expect(policy.usageIdentifierKey).toBe(usageKeyOf(principal!.tokenId));
    expect(policy.usageIdentifierKey!.length).toBeGreaterThanOrEqual(20);
    expect(policy.context).toMatchObject({ rateLimit: '2.5', burstLimit: '7' });
  });
});

test('the bucket refills at the rate and never holds more than the burst', () => {
  let now = 0;
  const limiter = new RateLimiter(() => now);
  const limit = { rate: 2, burst: 3 };
  expect([1, 2, 3, 4].map(() => limiter.take('k', limit))).toEqual([0, 0, 0, 1]);
  now += 500; // one request's worth
  expect(limiter.take('k', limit)).toBe(0);
  expect(limiter.take('k', limit)).toBe(1);
  now += 60_000; // a long pause refills to the burst, not beyond
  expect([1, 2, 3, 4].map(() => limiter.take('k', limit))).toEqual([0, 0, 0, 1]);
  // Slow rates wait longer: at 0.25 per second an empty bucket waits 4 s.
  expect(limiter.take('slow', { rate: 0.25, burst: 1 })).toBe(0);
  expect(limiter.take('slow', { rate: 0.25, burst: 1 })).toBe(4);
});
