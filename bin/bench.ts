/**
 * npm run bench: measures cost, bundle size, cold init, warm overhead, end-to-end load and scale,
 * writes BENCHMARKS.md and keeps the raw results in .bench/ (gitignored). Not part of npm test.
 *   --quick         fewer rounds and shorter load tests (a smoke run; do not commit its BENCHMARKS.md)
 *   --skip-100k     leave out the delete of a label with 100,000 links (the longest scenario by far)
 *   --report-only   render BENCHMARKS.md again from .bench/latest.json, measuring nothing
 *   --cold-only     measure section 2 (bundles and cold init) again into .bench/latest.json, and render
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { log } from '#bench/stats';
import { cliArguments } from '#lib/cli';
import type { Results } from '#bench/report';

const { values } = await cliArguments({
  usage: `usage: npm run bench -- [--quick] [--skip-100k] [--report-only | --cold-only]   (measures, writes BENCHMARKS.md and .bench/)
  --quick         fewer rounds and shorter load tests (a smoke run; do not commit its BENCHMARKS.md)
  --skip-100k     leave out the delete of a label with 100,000 links (the longest scenario by far)
  --report-only   render BENCHMARKS.md again from .bench/latest.json, measuring nothing
  --cold-only     measure section 2 (bundles and cold init) again into .bench/latest.json, and render`,
  options: { quick: 'boolean', 'skip-100k': 'boolean', 'report-only': 'boolean', 'cold-only': 'boolean' },
});
/** The machine a run measured on, as the report states it. */
function machineFacts() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? cpus()[0]?.model ?? 'unknown CPU';
  return { nproc: availableParallelism(), cpu, memoryGb: totalmem() / 2 ** 30, node: process.version, os: `${platform()} ${release()}` };
}
const benchDir = join(repoRoot, '.bench');

/** Keeps a run's results: as `.bench/results-<when><suffix>.json` and as `.bench/latest.json`, BENCHMARKS.md rendered from them. */
async function keepResults(results: Results, when: string, suffix = ''): Promise<string> {
  const { renderReport } = await import('#bench/report');
  const file = `results-${when.replace(/[:.]/g, '-')}${suffix}.json`;
  writeFileSync(join(benchDir, file), JSON.stringify(results, null, 2));
  writeFileSync(join(benchDir, 'latest.json'), JSON.stringify(results, null, 2));
  writeFileSync(join(repoRoot, 'BENCHMARKS.md'), renderReport(results));
  return file;
}
const quick = values.quick === true;
const skip100k = quick || values['skip-100k'] === true;
const settings = {
  initRounds: quick ? 3 : 80,
  warmRuns: quick ? 3 : 15,
  warmIterations: quick ? 500 : 1_500,
  e2eRounds: quick ? 1 : 3,
  e2eSeconds: quick ? 3 : 10,
  e2eConnections: 10,
  scaleIterations: quick ? 5 : 31,
  saturationSeconds: quick ? 6 : 15,
  mixStepSeconds: quick ? 6 : 20,
};
if (values['report-only']) {
  const { renderReport } = await import('#bench/report');
  writeFileSync(join(repoRoot, 'BENCHMARKS.md'), renderReport(JSON.parse(readFileSync(join(benchDir, 'latest.json'), 'utf8'))));
  log('BENCHMARKS.md rendered from .bench/latest.json');
  process.exit(0);
}
// Loaded once the arguments are read: --help, a mistyped option and --report-only load neither the stack nor esbuild.
const { useLocalDatabase } = await import('#local/database');
const { throwawayWebhookSecretsKey } = await import('#local/secrets');
const { startLocalApi } = await import('#support/local-api');
const { measureBundles } = await import('#bench/cold');
const { routeProcessOutput } = await import('#local/logRouter');
if (values['cold-only']) {
  // A change that moves only section 2 (a function's code): measured again alone (about 6 minutes), the report saying
  // when, on what, and which of its parts come from this run; kept as a results file of its own too.
  const latest = JSON.parse(readFileSync(join(benchDir, 'latest.json'), 'utf8')) as Results;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  log('section 2 alone: bundles and cold init');
  const cold = await measureBundles(join(benchDir, 'bundles'), settings.initRounds);
  log('section 2 alone: the client package');
  const { measureClient } = await import('#bench/client');
  latest.client = measureClient();
  const measuredAt = new Date().toISOString();
  latest.cold = { ...cold, measuredAt, machine: machineFacts() };
  log(`BENCHMARKS.md rendered, section 2 measured again: .bench/${await keepResults(latest, measuredAt, '-cold-only')}`);
  process.exit(0);
}
const started = Date.now();
mkdirSync(benchDir, { recursive: true });
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// The main key of secrets at rest, shared by the API it starts and the fixtures it writes itself.
process.env.WEBHOOK_SECRETS_KEY ||= throwawayWebhookSecretsKey();
// The handlers run in-process for some sections: their log and metrics lines go to .bench/, not the console.
routeProcessOutput({ logFile: join(benchDir, 'logs.jsonl'), metricsFile: join(benchDir, 'metrics.jsonl'), echo: false });

// Bundles and cold init first: child processes only, nothing else running.
log('section 2: bundles and cold init');
const cold = await measureBundles(join(benchDir, 'bundles'), settings.initRounds);
log('section 2: the client package');
const { measureClient } = await import('#bench/client');
const client = measureClient();

log('starting the local API (bin/start.ts, in-memory DynamoDB Local)');
// Webhooks are measured against an endpoint on loopback: this stack may deliver there.
const api = await startLocalApi({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, asNpmRuns: true });
let results;
try {
  // The benchmark's own calls go to the same DynamoDB Local as the local API's.
  useLocalDatabase(api.dynamodbPort);
  process.env.TABLE_NAME = '';
  const { db } = await import('#store/client');
  const { installMeter } = await import('#bench/capacity');
  installMeter(db);
  const { measureCosts, measureIdempotencyCosts } = await import('#bench/cost');
  const { measureLineCosts, measureWarm } = await import('#bench/warm');
  const { measureEndToEnd } = await import('#bench/e2e');
  const { measureBigDeletes, measureHotLabel, measureListScale } = await import('#bench/scale');
  const { benchWorkspace, seedProjects } = await import('#bench/harness');

  log('section 1: DynamoDB cost per request');
  const cost = await measureCosts();
  const idempotency = await measureIdempotencyCosts();
  log('section 3: warm overhead');
  const warm = await measureWarm(settings.warmRuns, settings.warmIterations);
  const lines = await measureLineCosts();
  log('section 4: end to end under load');
  const w = await benchWorkspace('e2e');
  const [first] = await seedProjects(w.ws, 100, (i) => `Load project ${String(i).padStart(3, '0')}`);
  const e2e = await measureEndToEnd({
    apiUrl: api.url,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT!,
    w,
    projectSlug: first!.slug,
    rounds: settings.e2eRounds,
    seconds: settings.e2eSeconds,
    connections: settings.e2eConnections,
  });
  log('section 1: the stream processor, per change');
  const { measureInbound, measureStreamCosts } = await import('#bench/stream');
  const streamCost = await measureStreamCosts();
  log('section 1: inbound events');
  const inbound = await measureInbound();
  log('section 1: webhooks');
  const { measureWebhooks } = await import('#bench/webhooks');
  const webhooks = await measureWebhooks({ apiUrl: api.url, w: await benchWorkspace('hooks'), deliveries: quick ? 20 : 200 });
  log('section 1: webhooks, a working endpoint beside 20 dead ones');
  const { measureLaneIsolation } = await import('#bench/webhookLanes');
  const lanes = await measureLaneIsolation({ seconds: quick ? 10 : 30, drainS: quick ? 30 : 90 });
  log('section 1: the history');
  const { measureActivity } = await import('#bench/activity');
  const activity = await measureActivity({ apiUrl: api.url, w: await benchWorkspace('history'), entries: quick ? 20 : 200 });
  log('section 1: the heavy routes at their worst');
  const { measureAtLimits } = await import('#bench/limits');
  const atLimits = await measureAtLimits();
  log("section 6: the history's keys under the partition simulator");
  const { measureHistorySaturation } = await import('#bench/historySaturation');
  const historySaturation = await measureHistorySaturation(quick ? 6 : 12);
  log("section 6: step 2's keys, one at a time, under the partition simulator");
  const { measureKeySaturation } = await import('#bench/keySaturation');
  const keySaturation = await measureKeySaturation(quick ? 6 : 12);
  log('section 5: one label attached to many tasks at once');
  const hot = await measureHotLabel(api.url, [50, 100]);
  log('section 5: big deletes');
  const deletes = await measureBigDeletes({ hundredThousand: !skip100k });
  log('section 5: list and find at 100 vs 10,000 projects');
  const scale = await measureListScale(settings.scaleIterations);
  results = {
    cold,
    cost,
    idempotency,
    streamCost,
    inbound,
    webhooks,
    lanes,
    activity,
    atLimits,
    historySaturation,
    keySaturation,
    warm,
    lines,
    e2e,
    hot,
    deletes,
    scale,
  };
} finally {
  await api.stop();
}
log('section 6: saturation with the partition simulator, against the capacity model');
const { measureSaturation } = await import('#bench/saturation');
const saturation = await measureSaturation(settings.saturationSeconds, settings.mixStepSeconds);

const full = {
  machine: machineFacts(),
  date: new Date().toISOString(),
  command: quick ? 'npm run bench -- --quick' : skip100k ? 'npm run bench -- --skip-100k' : 'npm run bench',
  runtimeS: (Date.now() - started) / 1000,
  settings,
  ...results,
  client,
  saturation,
};
const kept = await keepResults(full, full.date);
log(`done in ${(full.runtimeS / 60).toFixed(1)} min: BENCHMARKS.md, .bench/${kept}`);
process.exit(0);
