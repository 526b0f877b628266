/**
 * npm start: the whole API on this machine.
 *   - DynamoDB Local on 127.0.0.1:DYNAMODB_PORT (default 8000), data kept in .data/ (--in-memory: throwaway)
 *   - the table created if missing
 *   - the route table served on 127.0.0.1:PORT (default 3000) behind a local API Gateway emulator
 *   - the stream processor on the table's stream (the Lambda handler's code), writing outbound events
 *     to EVENTS_FILE (default .data/events.jsonl; follow them with `npm run events:follow`)
 *   - the inbound path (rule, queue, consumer) in-process: `npm run emit` posts task, member and sprint
 *     events to POST /__local/events on the same port
 *   - the webhook path (rule, deliveries queue, deliverer) in-process, delivering with the deployed code
 * With TABLE_NAME set (and no --embedded), it serves that real DynamoDB table with your AWS credentials.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { repoRoot } from '#lib/paths';
import { routeProcessOutput } from '#local/logRouter';
import type { StreamRunner } from '#local/streams';
import { localCursorKey, localWebhookSecretsKey } from '#local/secrets';
import { cliArguments, cliError } from '#lib/cli';
import {
  dynamodbPort,
  ensureTable,
  sharedDynamoDbLocal,
  startDynamoDbLocal,
  useLocalDatabase,
  type EmbeddedDatabase,
} from '#local/database';
import { dataDir, recordRunningStack, runningStack } from '#local/stackDiscovery';
import { checkStart, webhookTargetsLine } from '#local/startChecks';

const USAGE = `usage: npm start [-- --in-memory | --embedded]
  (no option)   DynamoDB Local with its data in DATA_DIR (default .data/), or, with TABLE_NAME set, that real table
  --in-memory   a throwaway DynamoDB Local (nothing kept)
  --embedded    DynamoDB Local even when TABLE_NAME is set
Environment: PORT (default 3000), DYNAMODB_PORT (default 8000), DATA_DIR, TABLE_NAME.`;
// Every setting of docs/local.md is checked before anything starts (lib/settings/table.ts), and what it does not use said.
const { values: flags } = await cliArguments({
  usage: USAGE,
  options: { 'in-memory': 'boolean', embedded: 'boolean' },
  settingWarnings: true,
});
const inMemory = flags['in-memory'] === true;
const embedded = flags.embedded === true || inMemory || !process.env.TABLE_NAME;
const port = Number(process.env.PORT ?? 3000);
// The webhook settings (WEBHOOKS_RETRY_SCHEDULE, WEBHOOKS_TIMEOUT, WEBHOOKS_DEACTIVATE_AFTER) are read at each delivery: check them now.
try {
  (await import('#webhooks/settings')).deliverySettings();
} catch (error) {
  cliError((error as Error).message);
}
const host = process.env.HOST ?? '127.0.0.1';

let database: EmbeddedDatabase | undefined;
let stream: StreamRunner | undefined;
/** POST: answered once the stream processor has handled every write made before it (tests wait on it). */
const STREAM_CAUGHT_UP_PATH = '/__local/stream/caught-up';
let inbound: { stop(): Promise<void> } | undefined;
let webhooks: { stop(): Promise<void> } | undefined;
// DynamoDB Local is a child process: never leave it running when this process ends, however it ends.
process.on('exit', () => database?.process?.kill('SIGKILL'));
process.on('uncaughtException', (error) => {
  console.error(error);
  process.exit(1);
});
process.on('unhandledRejection', (error) => {
  console.error(error);
  process.exit(1);
});
// What CloudWatch does with the functions' JSON output: logs and metrics to files, logs shown readably.
process.env.POWERTOOLS_SERVICE_NAME ||= 'project-label-service-local';
// As Lambda sets it for an on-demand instance: each function reports its first invocation as a cold start.
process.env.AWS_LAMBDA_INITIALIZATION_TYPE ||= 'on-demand';
const output = routeProcessOutput({
  logFile: localFile('LOG_FILE', 'logs.jsonl'),
  metricsFile: localFile('METRICS_FILE', 'metrics.jsonl'),
  echo: process.env.LOG_ECHO !== '0',
});

// A second start on the same data, or on ports in use, says so in one sentence (not EADDRINUSE, and
// never by talking to another start's DynamoDB Local as if it were its own).
const dbPort = dynamodbPort();
const shared = embedded && inMemory ? sharedDynamoDbLocal(dbPort) : undefined;
await checkStart({ port, dbPort, embedded, inMemory, shared: shared !== undefined });

if (embedded) {
  // In memory, each access key gets a database of its own (the test suite gives files that read their own
  // tables' streams one each); on disk, one shared file, whichever key or region a CLI uses.
  database =
    shared ??
    (await startDynamoDbLocal({ port: dbPort, ...(inMemory ? { sharedDb: false } : { dataDir }) }).catch((error: Error) =>
      cliError(error.message),
    ));
  useLocalDatabase(dbPort);
  const pid = database.process ? `pid ${database.process.pid}` : 'already running';
  console.log(`DynamoDB Local on ${database.endpoint} (${inMemory ? 'in memory' : `data in ${dataDir}`}, ${pid})`);
}

// Cursors carry a MAC (domain/cursors.ts): keep its key with the data, so cursors survive a restart.
process.env.CURSOR_KEY ||= localCursorKey(embedded && !inMemory ? dataDir : undefined);
// Webhook secrets are sealed (functions/commons/store/sealing.ts): under the data folder's key locally; a
// deployed table's under its stack's KMS key, which the deployed deliverer opens them with, never a local one.
if (embedded) process.env.WEBHOOK_SECRETS_KEY ||= localWebhookSecretsKey(dataDir);
else if (process.env.WEBHOOK_SECRETS_KEY && !process.env.WEBHOOK_SECRETS_KMS_KEY_ID)
  cliError(
    `TABLE_NAME=${process.env.TABLE_NAME} is a deployed table: its webhook secrets are sealed under its stack's KMS key. Set WEBHOOK_SECRETS_KMS_KEY_ID to that key's ARN and unset WEBHOOK_SECRETS_KEY.`,
  );

// Imported only now: the shared DocumentClient reads its endpoint from the environment at load.
const { tableName } = await import('#store/table');
const { createGateway } = await import('#local/gateway');
const { lazyFunctions } = await import('#local/lambdaEvents');
// DYNAMODB_PARTITION_LIMITS: DynamoDB Local throttled as DynamoDB throttles a hot partition (docs/local.md).
(await import('#local/partitions/install')).simulatePartitions({ embedded });

if (embedded) {
  const client = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const created = await ensureTable(client, tableName());
  client.destroy();
  if (created) console.log(`Created table ${tableName()}`);
}

const server = createGateway(lazyFunctions(repoRoot), {});
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, host, resolve);
}).catch((error: NodeJS.ErrnoException) =>
  // What the checks above cannot see: a port taken meanwhile, one below 1024, a HOST this machine does not have.
  cliError(`The API cannot listen on ${host}:${port} (${error.code ?? error.message}): choose another PORT (or HOST) and start again.`),
);
const address = server.address();
const actualPort = typeof address === 'object' && address ? address.port : port;
const base = `http://${host}:${actualPort}`;
console.log(`API listening on ${base} (table ${tableName()}${embedded ? ', DynamoDB Local' : ', AWS'})`);
console.log(`API reference: ${base}/docs (the OpenAPI document: ${base}/openapi.json; the events, AsyncAPI: ${base}/asyncapi.json)`);

if (embedded) {
  // The same code as the stream processor Lambda, fed by DynamoDB Local's stream; events go to a file.
  const { processStreamBatch } = await import('#events/processor');
  const { CONSUMER_TIMEOUT_S, deadlineIn } = await import('#events/patience');
  const { reachesProcessor } = await import('#events/streamFilter');
  const { fileBus, teeBus } = await import('#local/eventFile');
  const { runTableStream } = await import('#local/streams');
  const eventsFile = eventsFilePath();
  // The bus's webhook rule and deliveries queue, with the deliverer Lambda's code (docs/webhooks.md).
  const { consumeWebhookMessages } = await import('#webhooks/consumer');
  // Each consumer held to the table access its deployed policy gives it, as the gateway holds the routes.
  const { asConsumer } = await import('#local/tableAccess');
  const { startLocalWebhooks } = await import('#local/webhookQueue');
  const localWebhooks = startLocalWebhooks({
    consume: asConsumer('webhook-deliverer', consumeWebhookMessages),
    deadLetterFile: process.env.WEBHOOK_DLQ_FILE || `${eventsFile.replace(/\.jsonl$/, '')}.webhook-dead-letters.jsonl`,
  });
  webhooks = localWebhooks;
  const bus = teeBus(fileBus(eventsFile), localWebhooks.bus);
  stream = await runTableStream({
    endpoint: database!.endpoint,
    tableName: tableName(),
    // As patient with a throttled table as the deployed function's timeout allows (events/patience.ts).
    handle: asConsumer('stream-processor', (records) => processStreamBatch(records, bus, deadlineIn(CONSUMER_TIMEOUT_S.streamProcessor))),
    filter: reachesProcessor,
    checkpointFile: inMemory ? undefined : join(dataDir, 'stream-checkpoints.json'),
    failureFile: process.env.STREAM_FAILURES_FILE || `${eventsFile.replace(/\.jsonl$/, '')}.failures.jsonl`,
    statusFile: process.env.STREAM_STATUS_FILE || `${eventsFile.replace(/\.jsonl$/, '')}.stream-status.json`,
  });
  console.log(`Stream processor running; outbound events in ${eventsFile} (follow them: npm run events:follow)`);

  // The inbound queue and its consumer: the Lambda handler's code behind a local rule and queue.
  const { consumeInbound } = await import('#events/inbound');
  const { startLocalInbound } = await import('#local/inboundQueue');
  const local = startLocalInbound({
    // What the consumer writes (counters, a deleted task's labels) reaches the stream at once too.
    consume: asConsumer('inbound-consumer', (records, deadLetters) =>
      consumeInbound(records, deadLetters, deadlineIn(CONSUMER_TIMEOUT_S.inboundConsumer)).finally(() => stream?.kick()),
    ),
    deadLetterFile: process.env.INBOUND_DLQ_FILE || `${eventsFile.replace(/\.jsonl$/, '')}.inbound-dead-letters.jsonl`,
  });
  inbound = local;
  const runner = stream;
  // The test suite's local APIs: a database of their own for each test file (lib/local/databaseSwitch.ts).
  const switchDatabase = shared && (await import('#local/databaseSwitch')).databaseSwitch(runner, database!.endpoint);
  const gateway = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (local.serve(req, res) || switchDatabase?.(req, res)) return;
    if (req.url?.split('?')[0] === STREAM_CAUGHT_UP_PATH) {
      // Answers once the stream processor has handled everything written before this request.
      void runner.caughtUp().then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ caught_up: true }));
      });
      return;
    }
    // A request that may have written: the stream is read at once, not after an idle pause.
    if (req.method !== 'GET') res.once('finish', () => runner.kick());
    gateway(req, res);
  });
  console.log(`Inbound events: npm run emit -- "Task Created" '{"company_slug":"acme-corp","project_slug":"...","task_uuid":"t-1"}'`);
  console.log(webhookTargetsLine());
}

if (embedded) await (await import('#local/firstToken')).greetWithFirstToken(base);
// The CLIs (token, invoke, emit, check-table, repair, rekey, events:follow) find this stack through this file
// (one in memory beside a stack of the data folder leaves that stack's record alone: the CLIs mean that one).
const forgetStack =
  embedded && !(inMemory && runningStack())
    ? recordRunningStack({
        pid: process.pid,
        apiUrl: base,
        dynamodbPort: dbPort,
        eventsFile: eventsFilePath(),
        startedAt: new Date().toISOString(),
      })
    : () => undefined;
process.on('exit', forgetStack);
console.log(`READY ${base}`);

const shutdown = async () => {
  server.close();
  await stream?.stop();
  await inbound?.stop();
  await webhooks?.stop();
  await database?.stop();
  await output.stop();
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, shutdown);

/** EVENTS_FILE, or .data/events.jsonl beside the data (a throwaway file for an in-memory run). */
function eventsFilePath(): string {
  return localFile('EVENTS_FILE', 'events.jsonl');
}

/** The file an environment variable names, or `name` in .data/ (in the temp folder for an in-memory run). */
function localFile(variable: string, name: string): string {
  if (process.env[variable]) return process.env[variable]!;
  return inMemory ? join(tmpdir(), `project-label-service-${process.pid}-${name}`) : join(dataDir, name);
}
