/**
 * npm run invoke -- <function> [event file] [--seed] [--token <token>] [--workspace <slug>]
 *
 * Runs one function's handler in this process with a sample event, like `sam local invoke`, and
 * prints what it returns. <function> is a route name from functions/commons/http/routes.ts,
 * `authorizer`, `stream-processor` or `inbound-consumer`; the event defaults to events/<function>.json.
 * The stream processor publishes to the local event file (EVENTS_FILE, default .data/events.jsonl)
 * instead of EventBridge, and the inbound consumer dead-letters to a local file instead of SQS, as
 * under `npm start`.
 *   --seed       first create what the sample events act on (projects website-redesign and
 *                legacy-site, labels bug and obsolete; removes label feature so create-label can run
 *                again) and a token, which replaces {{TOKEN}} in the event
 *   --token      the token to put in place of {{TOKEN}} (also: env TOKEN)
 *   --workspace  run the event against another workspace than acme-corp
 * Database: DynamoDB Local on DYNAMODB_PORT (run `npm start` first), or a deployed table when
 * TABLE_NAME and AWS credentials are set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dataDir, isLocalDatabase, useLocalDatabase } from '#local/database';
import { routeProcessOutput } from '#local/logRouter';
import { repoRoot } from '#lib/paths';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seed: { type: 'boolean' }, token: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const [name, eventFile] = positionals;
if (!name || values.help) {
  console.error('usage: npm run invoke -- <function> [event file] [--seed] [--token <token>] [--workspace <slug>]');
  process.exit(2);
}

if (isLocalDatabase()) useLocalDatabase();
// As `sam local invoke` does: the function's log lines on stderr (readably), its answer alone on stdout;
// every log and metrics line also kept, as under `npm start`.
routeProcessOutput({
  logFile: process.env.LOG_FILE || join(dataDir, 'logs.jsonl'),
  metricsFile: process.env.METRICS_FILE || join(dataDir, 'metrics.jsonl'),
  echo: 'stderr',
});
// Imported only now: the shared DocumentClient reads its endpoint from the environment at load.
const { authorizerHandler, inboundConsumerHandler, streamProcessorHandler } = await import('#http/routes');
const { lambdaContext, loadHandler } = await import('#local/gateway');
const samples = await import('#local/samples');
const { seedFixtures } = await import('#local/fixtures');

const isAuthorizer = name === samples.AUTHORIZER_EVENT;
const handlerFile = isAuthorizer
  ? authorizerHandler
  : name === samples.STREAM_EVENT
    ? streamProcessorHandler
    : name === samples.INBOUND_EVENT
      ? inboundConsumerHandler
      : samples.routeNamed(name).handler;
const workspace = values.workspace ?? samples.SAMPLE_WORKSPACE;
let token = values.token ?? process.env.TOKEN;

try {
  if (values.seed) {
    const seeded = await seedFixtures(repoRoot, workspace);
    token ??= seeded.token;
    console.error(`Seeded fixtures in workspace ${workspace}.`);
  }
} catch (error) {
  console.error(`Seeding failed: ${(error as Error).message}\nIs the local database running (npm start)?`);
  process.exit(1);
}
if (isAuthorizer && !token)
  console.error(`No token given: the authorizer will refuse ${samples.TOKEN_PLACEHOLDER}. Use --seed, --token or TOKEN.`);

const file = eventFile ?? join(repoRoot, 'events', `${name}.json`);
if (name === samples.STREAM_EVENT) {
  // The Lambda handler's code with the local bus in place of EventBridge.
  const { processStreamBatch } = await import('#events/processor');
  const { fileBus } = await import('#local/eventFile');
  const eventsFile = process.env.EVENTS_FILE || join(dataDir, 'events.jsonl');
  const started = process.hrtime.bigint();
  const outcome = await processStreamBatch(JSON.parse(readFileSync(file, 'utf8')).Records, fileBus(eventsFile));
  console.error(
    `${name} handled the batch in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms; events in ${eventsFile}:`,
  );
  console.log(JSON.stringify(outcome, null, 2));
  process.exit(0);
}
if (name === samples.INBOUND_EVENT) {
  // The Lambda handler's code with the local dead-letter file in place of the SQS dead-letter queue.
  const { consumeInbound } = await import('#events/inbound');
  const { appendFile, mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  const deadLetterFile = process.env.INBOUND_DLQ_FILE || join(dataDir, 'events.inbound-dead-letters.jsonl');
  const event = samples.prepareEvent(JSON.parse(readFileSync(file, 'utf8')), { workspace });
  const outcome = await consumeInbound(event.Records, {
    put: async (body, reason) => {
      await mkdir(dirname(deadLetterFile), { recursive: true });
      await appendFile(deadLetterFile, `${JSON.stringify({ reason, at: new Date().toISOString(), body })}\n`);
    },
  });
  console.error(`${name} handled ${event.Records.length} messages; malformed ones in ${deadLetterFile}:`);
  console.log(JSON.stringify(outcome, null, 2));
  process.exit(outcome.batchItemFailures.length ? 1 : 0);
}
const event = samples.prepareEvent(JSON.parse(readFileSync(file, 'utf8')), { workspace, ...(token ? { token } : {}) });
const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(repoRoot, handlerFile);

const started = process.hrtime.bigint();
try {
  const result = await handler(event, lambdaContext(name));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.error(`${name} answered in ${ms.toFixed(1)} ms:`);
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
} catch (error) {
  // What Lambda reports for a function error (the authorizer's "Unauthorized" is one: API Gateway answers 401).
  console.log(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }, null, 2));
  process.exit(1);
}
