import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKLOAD } from '#lib/capacity/scenarios';
import { FIXTURES, SAMPLE_PRINCIPAL } from '#local/sampleFixtures';
import { repoRoot } from '#lib/paths';
import { call, honouringRetryAfter, type Response } from '#support/api';
import { startLocalApi } from '#support/local-api';
import { runTool } from '#support/tools';
import { openLoop, type SaturationStack } from './openLoop.ts';
import { measureMixSaturation, type MixSaturation } from './saturationMix.ts';
import { log } from './stats.ts';

/**
 * Section 6: where one workspace saturates, measured with the partition simulator, beside the capacity
 * model's prediction (docs/capacity.md, `npm run capacity`). A local stack of its own runs with
 * DYNAMODB_PARTITION_LIMITS at 1/SCALE of DynamoDB's partition limits (both reads and writes, so every
 * rate of the model scales by 1/SCALE whichever limit it hits first), one second of burst. Each route is
 * offered, open loop, twice its predicted rate for a while; the 2xx answers completed per second once
 * the burst is spent are its measured saturation. The goal: within 20% of the prediction. The workspace
 * is made like the model's where a route's cost depends on it (the labels list: as many labels), and
 * the token's own rate limit is far above what is offered, so only the partitions refuse.
 */
// 1/100: the mix at its modelled 10,000 requests a second is 100 here, and its steps up to 150, which the slower of the
// 2-core machines serves (at 1/50 it served at most 156 of the 200-300 offered, so the mix's onset could not be seen).
const SCALE = 100;
const LIMITS = `rcu=${3_000 / SCALE},wcu=${1_000 / SCALE},burst=1`;
/** The workspace's rate limits as the prod stage sets them, nine tenths of a partition (lib/cdk/stage.ts), at the same scale. */
const WORKSPACE_LIMITS = `rcu=${(0.9 * 3_000) / SCALE},wcu=${(0.9 * 1_000) / SCALE}`;
/** The mix's steps with the workspace's limits on: at its saturation and past it. */
const LIMITED_FACTORS = [1, 1.2, 1.5, 2];
/** Seconds at the start left out of the count: the bucket's burst, and the SDK's first retries. */
const SETTLE_S = 3;

interface SaturationRow {
  route: string;
  scenario: string;
  /** The model's rate at DynamoDB's limits, and at the simulator's (divided by SCALE). */
  modelled: number;
  predicted: number;
  offered: number;
  measured: number;
  statuses: Record<string, number>;
}

/** The model's "at req/s" of a route: the row of docs/capacity.md that begins with it. */
export function modelledRate(route: string, page = readFileSync(join(repoRoot, 'docs', 'capacity.md'), 'utf8')): number {
  const lines = page.split('\n');
  const header = lines.find((l) => l.startsWith('| route |'))!.split(' | ');
  const row = lines.find((l) => l.startsWith(`| ${route} |`));
  if (!row) throw new Error(`docs/capacity.md has no row for ${route}`);
  const cell = row.split(' | ')[header.indexOf('at req/s')]!.replace(/[*,]/g, '');
  return cell === 'unlimited' ? Number.POSITIVE_INFINITY : Number(cell);
}

interface Probe {
  route: string;
  scenario: string;
  request: (i: number) => { method: string; path: string; body?: unknown };
}

export interface SaturationResult {
  limits: string;
  scale: number;
  rows: SaturationRow[];
  mix?: MixSaturation;
  /** The mix again on a stack with the workspace's rate limits on (WORKSPACE_RATE_LIMITS `setting`). */
  limited?: { setting: string; mix: MixSaturation };
}

export async function measureSaturation(seconds: number, mixStepSeconds: number): Promise<SaturationResult> {
  const { rows, mix } = await onStack({ DYNAMODB_PARTITION_LIMITS: LIMITS }, async (stack) => ({
    rows: await measureRoutes(stack, seconds),
    mix: await measureMixSaturation(stack, SCALE, mixStepSeconds),
  }));
  log(`section 6: the mix again, with the workspace's rate limits on (${WORKSPACE_LIMITS})`);
  const limited = await onStack({ DYNAMODB_PARTITION_LIMITS: LIMITS, WORKSPACE_RATE_LIMITS: WORKSPACE_LIMITS }, (stack) =>
    measureMixSaturation(stack, SCALE, mixStepSeconds, LIMITED_FACTORS),
  );
  return { limits: LIMITS, scale: SCALE, rows, mix, limited: { setting: WORKSPACE_LIMITS, mix: limited } };
}

/** `measure` on a local stack of its own, run with `env` and its workspace made like the model's. */
async function onStack<T>(env: Record<string, string>, measure: (stack: SaturationStack) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-saturation-'));
  const logFile = join(dataDir, 'logs.jsonl');
  const api = await startLocalApi({ env: { ...env, DATA_DIR: dataDir, LOG_FILE: logFile }, asNpmRuns: true });
  try {
    return await measure(await prepare(api.url, dataDir, logFile));
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A token far above what is offered (only the partitions refuse), and the model's workspace: its labels, projects and labelled tasks. */
async function prepare(url: string, dataDir: string, logFile: string): Promise<SaturationStack> {
  const { owner } = SAMPLE_PRINCIPAL;
  const made = await runTool(
    'bin/token.ts',
    [
      'create',
      '--workspace',
      'acme-corp',
      '--name',
      owner.name,
      '--username',
      owner.username,
      '--all-scopes',
      '--no-expiry',
      '--rate',
      '10000',
      '--burst',
      '5000',
      '--json',
    ],
    { DATA_DIR: dataDir },
  );
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const sent =
    (tooMany: 'answer' | 'wait') =>
    (method: string, path: string, body?: unknown): Promise<Response> =>
      call(method, `${path}${path.includes('?') ? '&' : '?'}company_slug=acme-corp`, {
        base: url,
        token,
        tooMany,
        ...(body === undefined ? {} : { body }),
      }).catch(() => ({ status: 0 }) as Response);
  // A 429 (the workspace's limits, where they are on) is an answer the probes count; setting up waits it out (call's own
  // wait), and a 503 (a partition) too.
  const send = sent('answer');
  const patiently = (method: string, path: string, body?: unknown) => honouringRetryAfter(() => sent('wait')(method, path, body), 31);
  // Past saturation the stream can be minutes behind: each call waits for one caught-up round, asked again
  // before the HTTP client's own header timeout (300 s) would end it, however long the drain takes.
  const settle = async () => {
    const started = performance.now();
    for (;;) {
      const answered = await fetch(`${url}/__local/stream/caught-up`, { method: 'POST', signal: AbortSignal.timeout(240_000) }).then(
        () => true,
        () => false,
      );
      if (answered) break;
      log(`section 6: the stream is still catching up after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    const seconds = (performance.now() - started) / 1000;
    if (seconds > 10) log(`section 6: the stream caught up in ${seconds.toFixed(0)} s`);
    await new Promise((r) => setTimeout(r, 2_000));
  };
  // As the model's workspace is when it measures (lib/capacity/scenarios.ts): the sample fixtures' project
  // and labels, then its own projects and labels, and tasks of the project carrying two labels each.
  const project = (await patiently('POST', '/projects', { name: FIXTURES.project.name })).body.data.slug as string;
  const label = (await patiently('POST', '/projects-labels', { title: FIXTURES.label.title, color: FIXTURES.label.color })).body.data
    .slug as string;
  await patiently('POST', '/projects-labels', { title: FIXTURES.doomedLabel.title, color: FIXTURES.doomedLabel.color });
  for (let i = 4; i <= WORKLOAD.labels; i++) await patiently('POST', '/projects-labels', { title: `Topic ${i}`, color: '0E8A16' });
  for (let i = 3; i <= WORKLOAD.projects; i++) await patiently('POST', '/projects', { name: `Workstream ${String(i).padStart(2, '0')}` });
  const inProject = `?project_slug=${project}`;
  for (let t = 2; t <= WORKLOAD.labelledTasks + 1; t++)
    for (const l of [label, `topic-${4 + (t % (WORKLOAD.labels - 3))}`])
      await patiently('POST', `/projects-labels/${l}/attach${inProject}`, { task_uuid: `task-${t}` });
  const stack = { url, project, label, send, patiently, settle, logFile };
  await settle();
  return stack;
}

async function measureRoutes(stack: SaturationStack, seconds: number): Promise<SaturationRow[]> {
  const { project, label, send } = stack;
  const probes: Probe[] = [
    { route: 'GET /projects/{slug}', scenario: 'one project', request: () => ({ method: 'GET', path: `/projects/${project}` }) },
    { route: 'GET /projects-labels', scenario: 'the labels list', request: () => ({ method: 'GET', path: '/projects-labels' }) },
    {
      route: 'PUT /projects-labels/{slug}',
      scenario: 'a new color each time',
      request: (i) => ({ method: 'PUT', path: `/projects-labels/${label}`, body: { color: (0x100000 + i).toString(16).toUpperCase() } }),
    },
    {
      route: 'POST /projects-labels/{slug}/attach',
      scenario: 'a new task each time (its stream work on the same keys)',
      request: (i) => ({
        method: 'POST',
        path: `/projects-labels/${label}/attach?project_slug=${project}`,
        body: { task_uuid: `sat-${i}` },
      }),
    },
  ];
  const rows: SaturationRow[] = [];
  for (const probe of probes) {
    const modelled = modelledRate(probe.route);
    const predicted = modelled / SCALE;
    const offered = 2 * predicted;
    log(`section 6: ${probe.route} offered ${offered.toFixed(1)}/s (predicted saturation ${predicted.toFixed(1)}/s)`);
    const answers = await openLoop(offered, seconds, (i) => {
      const r = probe.request(i);
      return send(r.method, r.path, r.body);
    });
    const counted = answers.filter((a) => a.status >= 200 && a.status < 300 && a.doneS >= SETTLE_S && a.doneS <= seconds);
    const statuses: Record<string, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    rows.push({
      route: probe.route,
      scenario: probe.scenario,
      modelled,
      predicted,
      offered,
      measured: counted.length / (seconds - SETTLE_S),
      statuses,
    });
    await stack.settle();
  }
  return rows;
}
