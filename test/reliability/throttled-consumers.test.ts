import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { call, honouringRetryAfter, type Response } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { runTool } from '#support/tools';
import { homeShard } from '#store/taskShardLayout';

/**
 * No cliff behind the requests: with the partition simulator set low, one project is driven past its
 * write limit (its tasks' busiest home shard) by label attaches and the rest of the product's task events at once. The stream
 * processor and the inbound consumer meet the same throttling on every call; they must wait it out
 * and catch up, not set work aside: once the stream has drained, no stream record is in the failure
 * file, no inbound event was dead-lettered, every acknowledged link is there, and the counters the
 * stream and the consumer keep agree with the links and the task states (`npm run check:table`). Each
 * waits the throttling out within its delivery (functions/commons/events/patience.ts): not one batch
 * or message fails, so none of the event sources' few retries is spent on it.
 */
const WS = 'acme-corp';
const WORKERS = 6;
const ATTACHES_PER_WORKER = 4;
const LABELS = 3;

let api: LocalApi;
let dataDir: string;
let token: string;
const files = (dir: string) => ({
  failures: join(dir, 'stream-failures.jsonl'),
  inboundDeadLetters: join(dir, 'inbound-dead-letters.jsonl'),
  logs: join(dir, 'logs.jsonl'),
  events: join(dir, 'events.jsonl'),
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pls-throttled-consumers-'));
  const f = files(dataDir);
  api = await startLocalApi({
    sharing: localStack().dynamodbPort,
    env: {
      DATA_DIR: dataDir,
      DYNAMODB_PARTITION_LIMITS: 'rcu=40,wcu=10,burst=1',
      STREAM_FAILURES_FILE: f.failures,
      INBOUND_DLQ_FILE: f.inboundDeadLetters,
      LOG_FILE: f.logs,
      EVENTS_FILE: f.events,
    },
  });
  token = /TOKEN=(\S+)/.exec(api.output())![1]!;
});

afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const send = async (method: string, path: string, body?: unknown): Promise<Response> => {
  const url = `${path}${path.includes('?') ? '&' : '?'}company_slug=${WS}`;
  return call(method, url, { base: api.url, token, ...(body === undefined ? {} : { body }) });
};

/** Sends as a client told Retry-After would. */
const patiently = (method: string, path: string, body?: unknown) => honouringRetryAfter(() => send(method, path, body), 31);

/** Task events of the rest of the product, through the local bus; answered once the consumer is done with them. */
async function emit(type: string, project: string, task: string, at: number): Promise<string | undefined> {
  const detail = { event_id: `${type}-${task}`.replaceAll(' ', '-'), company_slug: WS, project_slug: project, task_uuid: task };
  const res = await fetch(`${api.url}/__local/events?wait=180`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Entries: [
        { Source: 'tasks-service', DetailType: type, Detail: JSON.stringify({ ...detail, occurred_at: new Date(at).toISOString() }) },
      ],
    }),
  });
  const answer = (await res.json()) as { Entries: { Verdict?: { outcome: string } }[] };
  return answer.Entries[0]?.Verdict?.outcome;
}

test('throttled for seconds, the stream processor and the inbound consumer catch up: nothing set aside, counters exact', async () => {
  const project = await patiently('POST', '/projects', { name: 'Hot Board' });
  expect(project.status).toBe(201);
  const slug = project.body.data.slug as string;
  const labels: string[] = [];
  for (let i = 0; i < LABELS; i++) {
    const label = await patiently('POST', '/projects-labels', { title: `Lane ${i}`, color: '00AA00' });
    expect(label.status).toBe(201);
    labels.push(label.body.data.slug as string);
  }

  // Every worker labels tasks of its own (each attach a new link); the tasks service tells of each task meanwhile. The
  // tasks are all of one home (store/taskShardLayout.ts): the project's busiest partition, as one of its 16 would be.
  const acknowledged: [task: string, label: string][] = [];
  const refused: Response[] = [];
  const started = Date.now();
  const oneHome = Array.from({ length: 2_000 }, (_, k) => `task-${k}`).filter((t) => homeShard(t) === 1);
  const tasks = oneHome.slice(0, WORKERS * ATTACHES_PER_WORKER);
  const told = tasks.filter((_, i) => i % 2 === 0);
  const events = Promise.all(told.map((task, i) => emit(i % 2 ? 'Task Completed' : 'Task Created', slug, task, started + i)));
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = 0; i < ATTACHES_PER_WORKER; i++) {
        const task = tasks[w * ATTACHES_PER_WORKER + i]!;
        const label = labels[i % LABELS]!;
        const res = await send('POST', `/projects-labels/${label}/attach?project_slug=${slug}`, { task_uuid: task });
        if (res.status === 200) acknowledged.push([task, label]);
        else refused.push(res);
      }
    }),
  );
  const verdicts = await events;
  const loaded = Date.now();
  console.log(
    `throttled consumers: ${acknowledged.length} attaches acknowledged, ${refused.length} refused, inbound verdicts ${JSON.stringify(
      Object.fromEntries([...new Set(verdicts)].map((v) => [v, verdicts.filter((x) => x === v).length])),
    )}`,
  );
  // The load was past the limit (some refused), and every refusal is a 503 with Retry-After.
  expect(refused.length).toBeGreaterThan(0);
  expect(
    refused.filter((r) => !(r.status === 503 && r.headers.has('retry-after'))).map((r) => `${r.status} ${r.text.slice(0, 200)}`),
  ).toEqual([]);
  // The inbound consumer applied every event (none dead-lettered, none still pending after its wait).
  expect(verdicts.filter((v) => v !== 'applied')).toEqual([]);

  const caughtUp = await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
  expect(caughtUp.status).toBe(200);
  const drained = Date.now();
  const f = files(dataDir);
  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  expect(lines(f.failures).map((l) => (JSON.parse(l) as { error: string }).error)).toEqual([]);
  expect(lines(f.inboundDeadLetters)).toEqual([]);

  // Every acknowledged link has its event, under one id however often it was published.
  const attachedEvents = lines(f.events)
    .map((l) => JSON.parse(l) as { 'detail-type': string; detail: { event_id: string; task_uuid?: string; label: { slug: string } } })
    .filter((e) => e['detail-type'] === 'Label Attached' && e.detail.task_uuid?.startsWith('task-'));
  const linked = new Set(attachedEvents.map((e) => `${e.detail.task_uuid} ${e.detail.label.slug}`));
  expect(acknowledged.map(([task, label]) => `${task} ${label}`).filter((link) => !linked.has(link))).toEqual([]);
  expect(new Set(attachedEvents.map((e) => e.detail.event_id)).size).toBe(linked.size);
  for (const [task, label] of acknowledged) {
    const carried = await patiently('GET', `/task-labels?project_slug=${slug}&task_uuid=${task}`);
    expect(carried.status).toBe(200);
    expect((carried.body.data as { slug: string }[]).map((l) => l.slug)).toContain(label);
  }
  const read = Date.now();
  const checked = await runTool('bin/check-table.ts', [], { DATA_DIR: dataDir, ...api.cliEnv }, 120_000);
  expect(checked.stdout + checked.stderr).toMatch(/ 0 violations/);
  expect(checked.code).toBe(0);
  // Not even a retry spent: each consumer waited the throttling out within its delivery (events/patience.ts).
  const messages = lines(f.logs).map((l) => (JSON.parse(l) as { message: string }).message);
  expect(messages.filter((m) => m === 'batch failed' || m.startsWith('inbound event failed'))).toEqual([]);
  console.log(
    `phases: load ${loaded - started} ms, drain ${drained - loaded} ms, reads ${read - drained} ms, checker ${Date.now() - read} ms`,
  );
}, 300_000);
