import { localStack } from '#support/stack';
import { readFileSync, existsSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { call, tokenFor, uniqueWorkspace } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * What an operator gets from the running API (`npm start` writes what CloudWatch would hold: the
 * functions' JSON log lines and embedded-metric lines, to the files the test run names): one line
 * per request with its correlation id, and metrics by route and status class.
 */
const external = Boolean(process.env.API_URL);
type Line = Record<string, any>;

/** Every complete line of a file the API appends to (a line being written is left for the next read). */
function lines(file: string): Line[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** The sum of a metric over the metrics lines of one route. */
const metricSum = (route: string, metric: string) => () =>
  lines(metricsFile())
    .filter((l) => l.route === route)
    .reduce((sum, l) => sum + (l[metric] ?? 0), 0);

/** The lines (log or metrics) a predicate picks, once the API has written at least one. */
async function linesWhere(file: string, pick: (l: Line) => boolean): Promise<Line[]> {
  let found: Line[] = [];
  await expect.poll(() => (found = lines(file).filter(pick)).length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(1);
  return found;
}

/** The lines that carry this correlation id. */
const linesOf = (file: string, correlationId: string) => linesWhere(file, (l) => l.correlation_id === correlationId);

const logFile = () => localStack().logFile;
const metricsFile = () => localStack().metricsFile;

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
    expect(coldStarts[0]!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'route', 'function_name']]);
  });

  test('the stream processor logs each batch and counts the events it publishes', async () => {
    const published = metricSum('stream-processor', 'EventsPublished');
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

  test('a delete counts the items its cascade removes', async () => {
    const removed = metricSum('stream-processor', 'CascadeItemsRemoved');
    const project = (await call('POST', '/projects', { token, body: { company_slug: ws, name: `Cascade ${randomUUID().slice(0, 8)}` } }))
      .body.data.slug;
    const label = (
      await call('POST', `/projects-labels?company_slug=${ws}`, {
        token,
        body: { title: `Cascade ${randomUUID().slice(0, 8)}`, color: '112233' },
      })
    ).body.data.slug;
    for (const task of ['c-1', 'c-2', 'c-3']) {
      const res = await call('POST', `/projects-labels/${label}/attach?company_slug=${ws}&project_slug=${project}`, {
        token,
        body: { task_uuid: task },
      });
      expect(res.status, res.text).toBe(200);
    }
    await streamDrained();
    const before = removed();
    expect((await call('DELETE', `/projects-labels/${label}?company_slug=${ws}`, { token })).status).toBe(200);
    await streamDrained();
    // Three links, each kept as two items (the task's side and the label's): six items at least.
    await expect.poll(removed, { timeout: 10_000 }).toBeGreaterThanOrEqual(before + 6);
  });

  test('the inbound consumer counts the events it applies, drops and dead-letters', async () => {
    const project = (await call('POST', '/projects', { token, body: { company_slug: ws, name: `Inbound ${randomUUID().slice(0, 8)}` } }))
      .body.data.slug;
    const counts = {
      applied: metricSum('inbound-consumer', 'EventsApplied'),
      dropped: metricSum('inbound-consumer', 'EventsDropped'),
      dead: metricSum('inbound-consumer', 'EventsDeadLettered'),
    };
    const before = { applied: counts.applied(), dropped: counts.dropped(), dead: counts.dead() };
    const emit = async (detail: Record<string, unknown>) => {
      const res = await call('POST', '/__local/events', {
        body: {
          Entries: [{ Source: 'tasks-service', DetailType: 'Task Created', Detail: JSON.stringify({ company_slug: ws, ...detail }) }],
        },
      });
      expect(res.status, res.text).toBe(200);
    };
    await emit({ project_slug: project, task_uuid: `t-${randomUUID()}` });
    await emit({ project_slug: 'no-such-project', task_uuid: 't-1' });
    await emit({ project_slug: project }); // no task_uuid: malformed
    await expect.poll(counts.applied, { timeout: 10_000 }).toBeGreaterThanOrEqual(before.applied + 1);
    await expect.poll(counts.dropped, { timeout: 10_000 }).toBeGreaterThanOrEqual(before.dropped + 1);
    await expect.poll(counts.dead, { timeout: 10_000 }).toBeGreaterThanOrEqual(before.dead + 1);
  });

  test('a header not shaped like our tokens is answered 401 by the gateway without invoking the authorizer', async () => {
    const authorizerLines = () => lines(logFile()).filter((l) => l.route === 'authorizer').length;
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const id = Array.from(randomBytes(16), (b) => alphabet[b % 32]).join('');
    const secret = randomBytes(32).toString('base64url').slice(0, 43);
    const before = authorizerLines();
    for (const header of [
      'Bearer x',
      `Bearer pls_${id.slice(1)}_${secret}`,
      `Bearer pls_${id}_${secret}x`,
      `Bearer pls_${id.toUpperCase()}_${secret}`,
      `bearer pls_${id}_${secret}`,
      `Bearer  pls_${id}_${secret}`,
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
    ]) {
      const res = await call('GET', `/projects?company_slug=${ws}`, { headers: { Authorization: header } });
      expect(res.status, header).toBe(401);
      expect(res.headers.get('www-authenticate'), header).toBe('Bearer');
    }
    // A well-formed (unknown) token does reach it: once its line is there, the lines of any call before it are too.
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: `pls_${id}_${secret}` })).status).toBe(401);
    await linesWhere(logFile(), (l) => l.message === 'token refused' && l.token_id === id);
    expect(authorizerLines()).toBe(before + 1);
  });

  test('the authorizer logs the id a token claims, accepted or refused, never the token', async () => {
    const fresh = await tokenFor(ws);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const unknownId = Array.from(randomBytes(16), (b) => alphabet[b % 32]).join('');
    const unknownSecret = randomBytes(32).toString('base64url').slice(0, 43);
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: `pls_${unknownId}_${unknownSecret}` })).status).toBe(401);
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: fresh })).status).toBe(200);
    const [line] = await linesWhere(logFile(), (l) => l.message === 'token accepted' && l.token_id === fresh.split('_')[1]);
    expect(line).toMatchObject({ level: 'INFO', route: 'authorizer' });
    await linesWhere(logFile(), (l) => l.message === 'token refused' && l.token_id === unknownId);
    const logs = readFileSync(logFile(), 'utf8');
    expect(logs).not.toContain(unknownSecret);
    expect(logs).not.toContain(fresh.split('_').slice(2).join('_'));
    // Counted apart from the routes' requests, so a request is never counted twice.
    expect(lines(metricsFile()).some((l) => l.route === 'authorizer' && (l.TokensAccepted === 1 || l.TokensRefused === 1))).toBe(true);
    expect(lines(metricsFile()).some((l) => l.route === 'authorizer' && 'Requests' in l)).toBe(false);
  });
});
