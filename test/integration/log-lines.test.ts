import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isContinuation, jsonLineProblem, parseReadableLine, type ReadableLine } from '#local/logLines';
import { call } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';

/**
 * Log lines are parseable: a real `npm start` (its console shown, at DEBUG) serves a few requests, some
 * answered by its gateway, and consumes an inbound event of each outcome; then every line it wrote to
 * its log and metrics files, and every line it printed after READY, is read with the one strict reader
 * of the documented spelling (docs/operations.md#log-lines).
 */
const external = Boolean(process.env.API_URL);
// eslint-disable-next-line no-control-regex -- a terminal's colour code may come first
const TIME = /^(?:\x1b\[[0-9;]*m)?\d\d:\d\d:\d\d\.\d{3} /;

describe.skipIf(external)('every line of a run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pls-log-lines-'));
  const files = { logs: join(dir, 'logs.jsonl'), metrics: join(dir, 'metrics.jsonl') };
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi({
      sharing: localStack().dynamodbPort,
      env: { DATA_DIR: dir, LOG_ECHO: '1', POWERTOOLS_LOG_LEVEL: 'DEBUG', LOG_FILE: files.logs, METRICS_FILE: files.metrics },
    });
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const jsonLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const batches = (route: string) =>
    jsonLines(files.logs)
      .filter((l) => l.includes('"message":"batch"'))
      .map((l) => JSON.parse(l) as Record<string, number | string>)
      .filter((l) => l.route === route);

  test('files and console: one spelling, read strictly, for requests, the gateway, the stream, webhooks and inbound outcomes', async () => {
    const token = /pls_[A-Za-z0-9_-]+/.exec(api.output())![0];
    const send = (method: string, path: string, body?: unknown, withToken = true) =>
      call(method, path, { base: api.url, token: withToken ? token : null, ...(body === undefined ? {} : { body }) });
    const project = (await send('POST', '/projects', { company_slug: 'acme-corp', name: 'Log Lines' })).body.data.slug as string;
    expect((await send('GET', '/projects?company_slug=acme-corp&name=log%20lines')).status).toBe(200);
    expect((await send('GET', '/projects/no-such-project?company_slug=acme-corp')).status).toBe(404);
    expect((await send('GET', '/projects?company_slug=acme-corp', undefined, false)).status).toBe(401);
    expect((await send('GET', '/no-such-route')).status).toBe(404);

    // One inbound event of each outcome, in order: applied, unchanged, unknown_project, before_project, malformed.
    const now = new Date().toISOString();
    const task = (detail: Record<string, unknown>, id: string) => ({
      Source: 'tasks-service',
      DetailType: 'Task Created',
      Detail: JSON.stringify({ company_slug: 'acme-corp', project_slug: project, event_id: id, occurred_at: now, ...detail }),
    });
    const entries = [
      task({ task_uuid: 't-1' }, 'e-1'),
      task({ task_uuid: 't-1' }, 'e-2'),
      task({ task_uuid: 't-1', project_slug: 'no-such-project' }, 'e-3'),
      task({ task_uuid: 't-2', occurred_at: '2020-01-01T00:00:00Z' }, 'e-4'),
      task({}, 'e-5'),
    ];
    expect((await send('POST', '/__local/events', { Entries: entries }, false)).status).toBe(200);
    const consumed = () => batches('inbound-consumer').reduce((n, b) => n + Number(b.size), 0);
    await expect.poll(consumed, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(entries.length);
    expect((await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' })).status).toBe(200);
    await expect.poll(() => batches('webhook-deliverer').length, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(1);
    await api.stop();

    const problems: string[] = [];
    for (const file of [files.logs, files.metrics])
      for (const line of jsonLines(file)) {
        const problem = jsonLineProblem(line);
        if (problem) problems.push(`${file}: ${problem}: ${line}`);
      }
    const printed = api.output().split('\n');
    if (printed.at(-1) === '') printed.pop();
    const ready = printed.findIndex((l) => l.startsWith('READY '));
    expect(ready).toBeGreaterThan(0);
    const shown: ReadableLine[] = [];
    let previous: 'log' | 'other' = 'other';
    printed.forEach((line, i) => {
      if (isContinuation(line) && previous === 'log') return;
      if (TIME.test(line) || i > ready) {
        const parsed = parseReadableLine(line);
        if (typeof parsed === 'string') problems.push(`console line ${i + 1}: ${parsed}: ${line}`);
        else shown.push(parsed);
        previous = 'log';
      } else previous = 'other'; // npm start's own lines as it starts, up to READY
    });
    expect(problems).toEqual([]);

    // The run wrote what it should have: each kind of line, and each inbound outcome under its key.
    const messages = new Set(shown.map((l) => l.message));
    for (const m of [
      'request',
      'request received',
      'token accepted',
      'gateway answer',
      'batch',
      'inbound event dead-lettered',
      'message dead-lettered',
    ])
      expect(messages, m).toContain(m);
    const gateway = shown.filter((l) => l.message === 'gateway answer').map((l) => l.fields.status);
    expect(gateway).toEqual(expect.arrayContaining(['401', '404']));
    const batchRoutes = new Set(shown.filter((l) => l.message === 'batch').map((l) => l.fields.route));
    expect([...batchRoutes].sort()).toEqual(['inbound-consumer', 'stream-processor', 'webhook-deliverer']);
    const outcomes = batches('inbound-consumer').reduce<Record<string, number>>((sum, b) => {
      for (const k of ['applied', 'unchanged', 'unknown_project', 'before_project', 'malformed', 'failed'])
        sum[k] = (sum[k] ?? 0) + Number(b[k] ?? 0);
      return sum;
    }, {});
    expect(outcomes).toEqual({ applied: 1, unchanged: 1, unknown_project: 1, before_project: 1, malformed: 1, failed: 0 });
  });
});
