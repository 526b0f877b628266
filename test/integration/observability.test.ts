import { readFileSync, existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, test } from 'vitest';
import { call, tokenFor, uniqueWorkspace } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * What an operator gets from the running API (`npm start` writes what CloudWatch would hold: the
 * functions' JSON log lines and embedded-metric lines, to the files the test run names): one line
 * per request with its correlation id, and metrics by route and status class.
 */
const external = Boolean(process.env.API_URL);
type Line = Record<string, any>;

function lines(file: string): Line[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** The lines (log or metrics) that carry this correlation id, once the API has written them. */
async function linesOf(file: string, correlationId: string, count = 1): Promise<Line[]> {
  let found: Line[] = [];
  await expect
    .poll(() => (found = lines(file).filter((l) => l.correlation_id === correlationId)).length, { timeout: 10_000, interval: 50 })
    .toBeGreaterThanOrEqual(count);
  return found;
}

const logFile = () => inject('logFile');
const metricsFile = () => inject('metricsFile');

describe.skipIf(external)('logs and metrics of the running API', () => {
  const ws = uniqueWorkspace('obs');
  let token: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    call('GET', `${path}${path.includes('?') ? '&' : '?'}company_slug=${ws}`, { token, headers });

  test('a request gets one log line with its ids, route, workspace, token id, status and latency, and the correlation id back', async () => {
    token = await tokenFor(ws);
    const correlationId = `obs-${randomUUID()}`;
    const res = await get('/projects', { 'X-Correlation-Id': correlationId });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toBe(correlationId);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Correlation-Id');
    const [line, ...more] = await linesOf(logFile(), correlationId);
    expect(more).toEqual([]);
    const tokenId = token.split('_')[1];
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'request',
      route: 'list-projects',
      method: 'GET',
      workspace: ws,
      token_id: tokenId,
      status: 200,
      service: expect.any(String),
    });
    expect(line!.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(line!.api_request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(line!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(line!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  test('the token itself never reaches the logs, only its id', async () => {
    const correlationId = `obs-${randomUUID()}`;
    await get('/projects', { 'X-Correlation-Id': correlationId });
    await linesOf(logFile(), correlationId);
    const secret = token.split('_').slice(2).join('_');
    expect(secret.length).toBeGreaterThan(20);
    expect(readFileSync(logFile(), 'utf8')).not.toContain(secret);
    expect(readFileSync(metricsFile(), 'utf8')).not.toContain(secret);
  });

  test('without X-Correlation-Id, one is made, answered and logged', async () => {
    const res = await get('/projects');
    const correlationId = res.headers.get('x-correlation-id');
    expect(correlationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [line] = await linesOf(logFile(), correlationId!);
    expect(line).toMatchObject({ route: 'list-projects', status: 200 });
  });

  test.each([
    ['spaces', 'a correlation id'],
    ['129 characters', 'x'.repeat(129)],
    ['latin-1 letters', 'caf\u00e9'],
    ['an empty value', ''],
  ])('a correlation id with %s is replaced by a made one, never echoed', async (_what, given) => {
    const res = await get('/projects', { 'X-Correlation-Id': given });
    expect(res.status).toBe(200);
    const echoed = res.headers.get('x-correlation-id');
    expect(echoed).not.toBe(given);
    expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    await linesOf(logFile(), echoed!);
  });

  test('a client error is logged with its status and problem code, and counted as a 4xx of its route', async () => {
    const correlationId = `obs-${randomUUID()}`;
    const res = await get('/projects/no-such-project', { 'X-Correlation-Id': correlationId });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-correlation-id')).toBe(correlationId);
    const [line] = await linesOf(logFile(), correlationId);
    expect(line).toMatchObject({ level: 'INFO', route: 'get-project', status: 404, problem: 'not_found' });
    const [metrics] = await linesOf(metricsFile(), correlationId);
    expect(metrics).toMatchObject({ route: 'get-project', Requests: 1, Status4xx: 1 });
    expect(metrics!.Status2xx).toBeUndefined();
  });

  test('each request publishes its metrics in the embedded metric format: namespace, service and route dimensions', async () => {
    const correlationId = `obs-${randomUUID()}`;
    const res = await call('POST', '/projects', {
      token,
      body: { company_slug: ws, name: 'Observed' },
      headers: { 'X-Correlation-Id': correlationId },
    });
    expect(res.status).toBe(201);
    const [metrics, ...more] = await linesOf(metricsFile(), correlationId);
    expect(more).toEqual([]);
    expect(metrics).toMatchObject({ route: 'create-project', Requests: 1, Status2xx: 1, service: expect.any(String) });
    const directive = metrics!._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe('ProjectLabelService');
    expect(directive.Dimensions).toEqual([['service', 'route']]);
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'Requests', Unit: 'Count' },
        { Name: 'Status2xx', Unit: 'Count' },
      ]),
    );
    expect(metrics!._aws.Timestamp).toBeGreaterThan(Date.now() - 60_000);
  });

  test('each function reports one cold start, on its first invocation', async () => {
    await get('/projects');
    await expect
      .poll(() => lines(metricsFile()).filter((l) => l.ColdStart === 1 && l.route === 'list-projects').length, { timeout: 10_000 })
      .toBe(1);
    const coldStarts = lines(metricsFile()).filter((l) => l.ColdStart === 1);
    const perRoute = new Map<string, number>();
    for (const l of coldStarts) perRoute.set(l.route, (perRoute.get(l.route) ?? 0) + 1);
    expect([...perRoute.values()].every((n) => n === 1)).toBe(true);
    expect(coldStarts[0]!._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['service', 'function_name']));
  });

  test('the stream processor logs each batch and counts the events it publishes', async () => {
    const published = () =>
      lines(metricsFile())
        .filter((l) => l.route === 'stream-processor')
        .reduce((sum, l) => sum + (l.EventsPublished ?? 0), 0);
    const before = published();
    const res = await call('POST', `/projects-labels?company_slug=${ws}`, {
      token,
      body: { title: `Observed ${randomUUID().slice(0, 8)}`, color: '00FF00' },
    });
    expect(res.status).toBe(201);
    await streamDrained();
    await expect.poll(published, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(lines(logFile()).some((l) => l.message === 'batch' && l.route === 'stream-processor' && l.events >= 1)).toBe(true);
  });

  test('the authorizer logs a token it accepts by id and one it refuses without the token', async () => {
    const fresh = await tokenFor(ws);
    const res = await get('/projects');
    expect(res.status).toBe(200);
    const refused = `pls_${'a'.repeat(16)}_${'b'.repeat(43)}`;
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: refused })).status).toBe(401);
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: fresh })).status).toBe(200);
    const id = fresh.split('_')[1];
    await expect
      .poll(() => lines(logFile()).some((l) => l.message === 'token accepted' && l.token_id === id), { timeout: 10_000 })
      .toBe(true);
    await expect.poll(() => lines(logFile()).some((l) => l.message === 'token refused'), { timeout: 10_000 }).toBe(true);
    expect(readFileSync(logFile(), 'utf8')).not.toContain('b'.repeat(43));
  });
});
