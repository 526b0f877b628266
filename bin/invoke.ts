/**
 * npm run invoke -- <function> [event file] [--seed] [--token <token>] [--workspace <slug>]
 *
 * Runs one function's handler in this process with a sample event, like `sam local invoke`, and
 * prints what it returns. <function> is a route name from functions/commons/http/routes.ts,
 * `authorizer`, `stream-processor`, `inbound-consumer` or `webhook-deliverer`; the event defaults to events/<function>.json.
 * Locally a sample never touches your data: it runs in a sandbox table of its own on the DynamoDB
 * Local `npm start` runs, made for the run (with what the samples act on and a token for
 * {{TOKEN}}) and deleted after it; the stream processor's events and the inbound consumer's dead
 * letters go to files of the run's own (named in the output), not to .data/.
 *   --token      the token to put in place of {{TOKEN}} (also: env TOKEN)
 *   --workspace  the workspace the event names (default acme-corp)
 *   --seed       accepted for compatibility: the sandbox is always seeded
 * Against a deployed table (TABLE_NAME and AWS credentials set) there is no sandbox: --workspace
 * must name the workspace the sample may change, and --seed creates its fixtures there.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { routes } from '#http/routes';
import { cliArguments, cliError, exitPlainlyOnError } from '#lib/cli';
import { createTableInput, isLocalDatabase } from '#local/database';
import { dataDir, useLocalStack } from '#local/stackDiscovery';
import { routeProcessOutput } from '#local/logRouter';
import { repoRoot } from '#lib/paths';

const USAGE = 'usage: npm run invoke -- <function> [event file] [--token <token>] [--workspace <slug>]';
cliArguments(USAGE, ['--seed', '--token', '--workspace']);
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seed: { type: 'boolean' }, token: { type: 'string' }, workspace: { type: 'string' } },
});
const [name, eventFile] = positionals;
if (!name) {
  console.error(USAGE);
  process.exit(2);
}
const FUNCTIONS = [...routes.map((r) => r.name), 'authorizer', 'stream-processor', 'inbound-consumer', 'webhook-deliverer'];
if (!FUNCTIONS.includes(name)) cliError(`No function named "${name}"; the known ones are: ${FUNCTIONS.join(', ')}.`);
const file = eventFile ?? join(repoRoot, 'events', `${name}.json`);
if (!existsSync(file)) cliError(`No event file ${file}: give the path of an event, or leave it out for events/${name}.json.`);
let sample: unknown;
try {
  sample = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  cliError(`${file} is not a JSON event (${(error as Error).message}): fix it, or leave it out for events/${name}.json.`);
}

const local = isLocalDatabase();
/** Locally, the table the sample runs in: made now, deleted when the run ends. */
let sandbox: { table: string; client: DynamoDBClient; files: string } | undefined;
// An error nothing below catches is one sentence, and the sandbox goes with the run.
exitPlainlyOnError(removeSandbox);
if (local) {
  const endpoint = await useLocalStack();
  const table = `invoke-sandbox-${randomBytes(4).toString('hex')}`;
  const client = new DynamoDBClient({ endpoint });
  // No stream: nothing reads it, and DynamoDB Local keeps a stream's records a day in the database the
  // user's own stack reads (each of its stream reads costs time in proportion to all of them).
  await client.send(new CreateTableCommand({ ...createTableInput(table), StreamSpecification: undefined }));
  process.env.TABLE_NAME = table;
  sandbox = { table, client, files: join(tmpdir(), table) };
  // However the run ends (Ctrl-C too), the sandbox goes with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void removeSandbox().finally(() => process.exit(130)));
  console.error(`Running ${name} in a sandbox table ${table} made for this run (deleted after it): your data is not touched.`);
} else if (!values.workspace) {
  cliError(
    'Against a deployed table, name the workspace the sample may change with --workspace (samples create, change and delete what they act on).',
  );
}

/** Deletes the sandbox table, if this run made one. */
async function removeSandbox(): Promise<void> {
  if (sandbox) await sandbox.client.send(new DeleteTableCommand({ TableName: sandbox.table })).catch(() => undefined);
}

/** Ends the run: the sandbox table goes, then the process exits. */
async function finish(code: number): Promise<never> {
  await removeSandbox();
  process.exit(code);
}

// As `sam local invoke` does: the function's log lines on stderr (readably), its answer alone on stdout;
// every log and metrics line also kept, as under `npm start`.
routeProcessOutput({
  logFile: process.env.LOG_FILE || join(dataDir, 'logs.jsonl'),
  metricsFile: process.env.METRICS_FILE || join(dataDir, 'metrics.jsonl'),
  echo: 'stderr',
});
// Imported only now: the shared DocumentClient reads its endpoint from the environment at load.
const { authorizerHandler, inboundConsumerHandler, streamProcessorHandler, webhookDelivererHandler } = await import('#http/routes');
const { lambdaContext, loadHandler } = await import('#local/lambdaEvents');
const samples = await import('#local/samples');
const { seedFixtures } = await import('#local/fixtures');

const isAuthorizer = name === samples.AUTHORIZER_EVENT;
const handlerFile = isAuthorizer
  ? authorizerHandler
  : name === samples.STREAM_EVENT
    ? streamProcessorHandler
    : name === samples.INBOUND_EVENT
      ? inboundConsumerHandler
      : name === samples.WEBHOOK_EVENT
        ? webhookDelivererHandler
        : samples.routeNamed(name).handler;
const workspace = values.workspace ?? samples.SAMPLE_WORKSPACE;
let token = values.token ?? process.env.TOKEN;

try {
  if (sandbox || values.seed) {
    const seeded = await seedFixtures(repoRoot, workspace);
    token ??= seeded.token;
  }
} catch (error) {
  console.error(`Seeding the fixtures failed: ${(error as Error).message}`);
  await finish(1);
}
if (isAuthorizer && !token)
  console.error(`No token given: the authorizer will refuse ${samples.TOKEN_PLACEHOLDER}. Use --seed, --token or TOKEN.`);

if (name === samples.STREAM_EVENT) {
  // The Lambda handler's code with the local bus in place of EventBridge.
  const { processStreamBatch } = await import('#events/processor');
  const { fileBus } = await import('#local/eventFile');
  const eventsFile = sandbox ? `${sandbox.files}-events.jsonl` : process.env.EVENTS_FILE || join(dataDir, 'events.jsonl');
  const started = process.hrtime.bigint();
  // In the workspace the run names, as every other sample (against a deployed table, the only one it may change).
  const batch = samples.prepareEvent(sample as DynamoDBStreamEvent, { workspace });
  const outcome = await processStreamBatch(batch.Records, fileBus(eventsFile));
  console.error(
    `${name} handled the batch in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms; events in ${eventsFile}:`,
  );
  console.log(JSON.stringify(outcome, null, 2));
  await finish(0);
}
if (name === samples.INBOUND_EVENT) {
  // The Lambda handler's code with the local dead-letter file in place of the SQS dead-letter queue.
  const { consumeInbound } = await import('#events/inbound');
  const { appendFile, mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  const deadLetterFile = sandbox
    ? `${sandbox.files}-dead-letters.jsonl`
    : process.env.INBOUND_DLQ_FILE || join(dataDir, 'events.inbound-dead-letters.jsonl');
  const event = samples.prepareEvent(sample as SQSEvent, { workspace });
  const outcome = await consumeInbound(event.Records, {
    put: async (body, reason) => {
      await mkdir(dirname(deadLetterFile), { recursive: true });
      await appendFile(deadLetterFile, `${JSON.stringify({ reason, at: new Date().toISOString(), body })}\n`);
    },
  });
  console.error(`${name} handled ${event.Records.length} messages; malformed ones in ${deadLetterFile}:`);
  console.log(JSON.stringify(outcome, null, 2));
  await finish(outcome.batchItemFailures.length ? 1 : 0);
}
if (name === samples.WEBHOOK_EVENT) {
  // The Lambda handler's code with the queue printed instead of sent: a retry it schedules is shown, not kept.
  const { consumeWebhookMessages } = await import('#webhooks/consumer');
  const event = samples.prepareEvent(sample as SQSEvent, { workspace });
  const outcome = await consumeWebhookMessages(event.Records, {
    later: async (message, delayMs) => console.error(`would retry ${message.delivery_id} in ${Math.round(delayMs / 1000)} s`),
    deadLetter: async (_body, reason) => console.error(`would dead-letter: ${reason}`),
  });
  console.error(`${name} handled ${event.Records.length} messages:`);
  console.log(JSON.stringify(outcome, null, 2));
  await finish(outcome.batchItemFailures.length ? 1 : 0);
}
const event = samples.prepareEvent(sample, { workspace, ...(token ? { token } : {}) });
const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(repoRoot, handlerFile);

const started = process.hrtime.bigint();
try {
  const result = await handler(event, lambdaContext(name));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.error(`${name} answered in ${ms.toFixed(1)} ms:`);
  console.log(JSON.stringify(result, null, 2));
  await finish(0);
} catch (error) {
  // What Lambda reports for a function error (the authorizer's "Unauthorized" is one: API Gateway answers 401).
  console.log(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }, null, 2));
  await finish(1);
}
