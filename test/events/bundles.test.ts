import { localStack } from '#support/stack';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SAMPLE_DELIVERY, SAMPLE_WEBHOOK } from '#http/webhookRoutes';

import { authorizerHandler, inboundConsumerHandler, routes, streamProcessorHandler, webhookDelivererHandler } from '#http/routes';
import { buildBundles } from '#cdk/bundling';
import { seedFixtures } from '#local/fixtures';
import { SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import { repoRoot } from '#lib/paths';
import { AUTHORIZER_EVENT, INBOUND_EVENT, STREAM_EVENT, SAMPLE_REQUESTS, WEBHOOK_EVENT, prepareEvent } from '#local/samples';
import { uniqueWorkspace } from '#support/api';
import { usePrivateTable } from '#support/privateTable';
import { putNewDelivery } from '#webhooks/store/webhookDeliveries';

const run = promisify(execFile);

/**
 * Loads each bundle (what `npm run synth` deploys, built with the stack's esbuild settings) in ONE
 * fresh plain-Node process, outside the repository so no node_modules can stand in for something the
 * bundle forgot, and invokes it with its sample event.
 */
const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const results = {};
// The retry lane a recovery queues on, as the local stack registers its own (webhooks/queue.ts): kept here.
const queued = [];
globalThis[Symbol.for('project-label-service.webhook-retry-lane')] = {
  later: async (message) => void queued.push(message),
  deadLetter: async () => undefined,
};
for (const c of cases) {
  const context = { functionName: c.name, awsRequestId: 'bundle-smoke-' + c.name, getRemainingTimeInMillis: () => 20000 };
  try {
    const { handler } = await import(pathToFileURL(c.bundle).href);
    results[c.name] = c.loadOnly ? { result: { loaded: typeof handler } } : { result: await handler(c.event, context) };
  } catch (error) {
    results[c.name] = { error: String(error && error.stack || error) };
  }
}
results.queued = queued;
writeFileSync(process.argv[3], JSON.stringify(results));
process.exit(0);
`;

type Outcome = {
  result?: { statusCode?: number; body?: string; loaded?: string; policyDocument?: { Statement: { Effect: string }[] } };
  error?: string;
};

const functions = [
  ...routes.map((r) => ({ name: r.name, handler: r.handler })),
  { name: AUTHORIZER_EVENT, handler: authorizerHandler },
  // Loaded only: invoked, it would publish to EventBridge, which has no local stand-in outside npm start.
  { name: STREAM_EVENT, handler: streamProcessorHandler, loadOnly: true },
  // Loaded only: its sample's malformed message would go to an SQS queue.
  { name: INBOUND_EVENT, handler: inboundConsumerHandler, loadOnly: true },
  // Loaded only: its sample's retry would go to an SQS queue.
  { name: WEBHOOK_EVENT, handler: webhookDelivererHandler, loadOnly: true },
];
const SIMULATOR = 'local-partition-simulator';
// The samples' table in a database no local API reads: no deliverer tries the sample webhook's
// deliveries (its endpoint does not resolve) while the bundles build, so the recovery finds every one
// waiting and its breaker closed, however long the build takes.
const TABLE = 'bundles-samples';
usePrivateTable(TABLE);
/** A delivery of the sample webhook that failed to the end: what its recovery sends again. */
const FAILED_DELIVERY = 'msg_019bc0e1ee8000000000000000000001';
const dir = mkdtempSync(join(tmpdir(), 'pls-bundles-'));
let outcomes: Record<string, Outcome>;
let printed: Record<string, any>[];

beforeAll(async () => {
  const workspace = uniqueWorkspace('bundles');
  const [{ token }, bundles] = await Promise.all([
    seedFixtures(repoRoot, workspace),
    // The local partition simulator, bundled the same way: what a bundle carrying it would hold.
    buildBundles(
      { ...Object.fromEntries(functions.map((f) => [f.name, f.handler])), [SIMULATOR]: 'lib/local/partitions/simulator.ts' },
      dir,
    ),
  ]);
  await putNewDelivery({
    id: FAILED_DELIVERY,
    webhook_id: SAMPLE_WEBHOOK,
    workspace,
    event_type: 'Project Created',
    event_id: 'bundles-failed',
    payload: JSON.stringify({ type: 'Project Created', timestamp: new Date().toISOString(), data: {} }),
    status: 'failed',
    attempts: 5,
    created_at: new Date().toISOString(),
  });
  const cases = functions.map((f) => ({
    name: f.name,
    loadOnly: 'loadOnly' in f,
    bundle: bundles[f.name]!,
    event: prepareEvent(JSON.parse(readFileSync(join(repoRoot, 'events', `${f.name}.json`), 'utf8')), { workspace, token }),
  }));
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  writeFileSync(join(dir, 'runner.mjs'), RUNNER);
  const { stdout, stderr } = await run(process.execPath, [join(dir, 'runner.mjs'), join(dir, 'cases.json'), join(dir, 'results.json')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${localStack().dynamodbPort}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: TABLE,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      // The run's local main key of secrets at rest (deployed, WEBHOOK_SECRETS_KMS_KEY_ID: test/unit/sealing.test.ts).
      WEBHOOK_SECRETS_KEY: process.env.WEBHOOK_SECRETS_KEY,
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  outcomes = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Record<string, Outcome>;
  // What the functions printed is what Lambda would send to CloudWatch: JSON lines only.
  printed = `${stdout}\n${stderr}`
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(routes.map((r) => r.name))('the %s bundle loads in a fresh Node process and answers its sample event', (name) => {
  const outcome = outcomes[name]!;
  expect(outcome.error).toBeUndefined();
  expect(outcome.result?.statusCode, outcome.result?.body).toBe(SAMPLE_REQUESTS[name]!.expectedStatus);
});

test("the recovery's bundle queued the sample webhook's undelivered deliveries on the retry lane the process gave it, not its ping", () => {
  // The one failed delivery written above, and not the sample's failed ping (the recovery's own rules:
  // test/webhooks/engine.test.ts).
  const queued = (outcomes as unknown as { queued: { delivery_id: string; webhook_id: string; kind: string }[] }).queued;
  expect(queued.map((m) => [m.kind, m.webhook_id, m.delivery_id])).toEqual([['attempt', SAMPLE_WEBHOOK, FAILED_DELIVERY]]);
  // The sample's own delivery is a ping: never recovered.
  expect(queued.map((m) => m.delivery_id)).not.toContain(SAMPLE_DELIVERY);
});

test.each(routes.map((r) => r.name))('the %s bundle prints its request line (Powertools Logger) and its metrics (EMF)', (name) => {
  const line = printed.find((l) => l.message === 'request' && l.route === name);
  expect(line).toMatchObject({ level: 'INFO', status: SAMPLE_REQUESTS[name]!.expectedStatus, request_id: `bundle-smoke-${name}` });
  const metrics = printed.find((l) => '_aws' in l && l.route === name && l.Requests === 1);
  expect(metrics?._aws.CloudWatchMetrics[0].Namespace).toBe('ProjectLabelService');
});

test('the authorizer bundle loads in a fresh Node process and allows its sample event', () => {
  const outcome = outcomes[AUTHORIZER_EVENT]!;
  expect(outcome.error).toBeUndefined();
  expect(outcome.result?.policyDocument?.Statement.map((s) => s.Effect)).toEqual(['Allow']);
});

test('the stream processor bundle loads in a fresh Node process', () => {
  const outcome = outcomes[STREAM_EVENT]!;
  expect(outcome.error).toBeUndefined();
  expect(outcome.result?.loaded).toBe('function');
});

test("no bundle holds an SQS client: the functions that send (dead letters, retries, a recovery's attempts) load the runtime's when they need it", () => {
  const senders = [INBOUND_EVENT, WEBHOOK_EVENT, 'recover-webhook'];
  for (const f of functions) {
    const code = readFileSync(join(dir, f.name, 'index.mjs'), 'utf8');
    expect(code, f.name).not.toContain('AmazonSQS');
    if (senders.includes(f.name)) expect(code, f.name).toContain('"@aws-sdk/client-sqs"');
  }
  expect(functions.map((f) => f.name)).toEqual(expect.arrayContaining(senders));
});

test("no bundle holds a KMS client: the functions that seal or open secrets load the runtime's at their first data key", () => {
  const sealers = [WEBHOOK_EVENT, ...routes.filter((r) => r.secrets).map((r) => r.name)];
  expect(sealers.length).toBeGreaterThan(1);
  for (const f of functions) {
    const code = readFileSync(join(dir, f.name, 'index.mjs'), 'utf8');
    expect(code, f.name).not.toContain('TrentService');
    if (sealers.includes(f.name)) expect(code, f.name).toContain('"@aws-sdk/client-kms"');
  }
});

test('the inbound consumer bundle loads in a fresh Node process', () => {
  const outcome = outcomes[INBOUND_EVENT]!;
  expect(outcome.error).toBeUndefined();
  expect(outcome.result?.loaded).toBe('function');
});

test('no bundle carries the local partition simulator (DYNAMODB_PARTITION_LIMITS): never deployed', () => {
  const bundle = (name: string) => readFileSync(join(dir, name, 'index.mjs'), 'utf8');
  const markers = [SIMULATOR_MIDDLEWARE.name, 'DYNAMODB_PARTITION_LIMITS'];
  // The markers survive bundling: a function bundle that carried the simulator would hold them.
  for (const marker of markers) expect(bundle(SIMULATOR)).toContain(marker);
  const carrying = functions.filter((f) => markers.some((marker) => bundle(f.name).includes(marker)));
  expect(carrying.map((f) => f.name)).toEqual([]);
});

test("a webhook route's bundle holds its own input schema, not the others' (each is built by a call marked pure)", () => {
  const bundle = (name: string) => readFileSync(join(dir, name, 'index.mjs'), 'utf8');
  // The rotation's secret rule and the subscription's event-type rule, each said by one input schema alone.
  const owners = { 'is not a usable secret': ['rotate-webhook-secret'], 'is not an event type': ['create-webhook', 'update-webhook'] };
  for (const [rule, names] of Object.entries(owners)) {
    const holding = functions.filter((f) => bundle(f.name).includes(rule)).map((f) => f.name);
    expect(holding.sort(), rule).toEqual([...names].sort());
  }
});

test('no route reads a regular expression literal with a Unicode property class as it loads (patterns.ts builds them at first use)', () => {
  // A literal such as /\p{Cc}/u, wherever it sits: V8 checks it, with ICU's tables, as it reads the bundle.
  const literals = (code: string) => {
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node) && node.text.includes('\\p{')) found.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile('index.mjs', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS));
    return found;
  };
  expect(literals('const a = `${b}/${c}`, d = /^[\\p{Cc}]+$/u;'), 'the probe finds a literal').toEqual(['/^[\\p{Cc}]+$/u']);
  for (const r of routes) expect(literals(readFileSync(join(dir, r.name, 'index.mjs'), 'utf8')), r.name).toEqual([]);
  // The classes are still there, as strings.
  expect(readFileSync(join(dir, 'get-project', 'index.mjs'), 'utf8')).toContain('\\p{Cc}');
});
