/**
 * npm run invoke -- <function> [event file] [--seed] [--token <token>] [--workspace <slug>] [--verbose]
 *
 * Runs one function's handler in this process with a sample event, like `sam local invoke`, and
 * prints what it returns. <function> is a route name from functions/commons/http/routes.ts,
 * `authorizer`, `stream-processor`, `inbound-consumer` or `webhook-deliverer`; the event defaults to events/<function>.json.
 * Locally a sample never touches your stack: it runs in a sandbox table of its own on the DynamoDB
 * Local `npm start` runs, made for the run (with what the samples act on and a token for {{TOKEN}}),
 * and everything the run writes (log and metrics lines, the stream processor's events, the inbound
 * consumer's dead letters) goes to a temporary folder of its own; the table and the folder go with the
 * run, however it ends (lib/local/invokeRun.ts). Only the function's answer is printed, on stdout.
 *   --token      the token to put in place of {{TOKEN}} (also: env TOKEN)
 *   --workspace  the workspace the event names (default acme-corp)
 *   --seed       against a deployed table: create the fixtures first; locally nothing more (the sandbox is always seeded)
 *   --verbose    on stderr too: the stack used, the sandbox, the log lines, the time, the events written
 * Against a deployed table (TABLE_NAME and AWS credentials set) there is no sandbox: --workspace
 * must name the workspace the sample may change, and --seed creates its fixtures there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { cliArguments, cliError, exitPlainlyOnError } from '#lib/cli';
import { didYouMean } from '#lib/didYouMean';
import { repoRoot } from '#lib/paths';

const { positionals, values } = await cliArguments({
  usage: `usage: npm run invoke -- <function> [event file] [--token <token>] [--workspace <slug>] [--seed] [--verbose]
  <function>   a route's name (get-project, list-labels, ...: functions/commons/http/routes.ts), authorizer,
               stream-processor, inbound-consumer or webhook-deliverer; the event defaults to events/<function>.json
  --token      the token to put in place of {{TOKEN}} (also: env TOKEN)
  --workspace  the workspace the event names (default acme-corp)
  --seed       against a deployed table (TABLE_NAME set): first create what the samples act on (projects
               website-redesign and legacy-site, labels bug and obsolete, the sample webhooks, a token for
               {{TOKEN}}) in --workspace; locally it changes nothing: each run's sandbox table is always seeded
  --verbose    show the stack used, the sandbox, the log lines, the time and the events written (stderr)
  The \`--\` is needed: npm keeps the options before it for itself (--workspace: "No workspaces found").`,
  options: { seed: 'boolean', token: 'string', workspace: 'string', verbose: 'boolean' },
  args: { min: 1, max: 2, what: 'a function name and, optionally, an event file' },
});
const [name, eventFile] = positionals as [string, string | undefined];
const verbose = values.verbose === true;
// Loaded once the arguments are read: --help and a mistyped option load none of the service (about 0.7 s of a start).
const { routes } = await import('#http/routes');
const { isLocalDatabase } = await import('#local/database');
const FUNCTIONS = [...routes.map((r) => r.name), 'authorizer', 'stream-processor', 'inbound-consumer', 'webhook-deliverer'];
if (!FUNCTIONS.includes(name)) {
  const near = didYouMean(name, FUNCTIONS);
  cliError(`No function named "${name}"${near ? `: ${near}` : `; the known ones are: ${FUNCTIONS.join(', ')}.`}`);
}
const file = eventFile ?? join(repoRoot, 'events', `${name}.json`);
if (!existsSync(file)) cliError(`No event file ${file}: give the path of an event, or leave it out for events/${name}.json.`);
let sample: unknown;
try {
  sample = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  cliError(`${file} is not a JSON event (${(error as Error).message}): fix it, or leave it out for events/${name}.json.`);
}

const local = isLocalDatabase();
if (!local && !values.workspace)
  cliError(
    'Against a deployed table, name the workspace the sample may change with --workspace (samples create, change and delete what they act on).',
  );
const { startInvokeRun } = await import('#local/invokeRun');
const { useLocalStack } = await import('#local/stackDiscovery');
// An error nothing below catches is one sentence, and the sandbox goes with the run.
let end = async (code: number): Promise<void> => process.exit(code);
exitPlainlyOnError(() => end(1));
const run = await startInvokeRun({ endpoint: local ? await useLocalStack({ quiet: !verbose }) : undefined, verbose });
end = run.end;
if (run.table) tell(`Running ${name} in a sandbox table ${run.table} made for this run (deleted after it): your data is not touched.`);

/** What the run did besides its answer: on stderr with --verbose only. */
function tell(line: string): void {
  if (verbose) console.error(line);
}

/** Ends the run: the sandbox table goes, then the process exits (and the run's folder with it). */
const finish = run.end;

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
  if (run.table || values.seed) {
    const seeded = await seedFixtures(repoRoot, workspace);
    token ??= seeded.token;
  }
} catch (error) {
  // Said in one sentence, the sandbox removed (exitPlainlyOnError above); nothing when Ctrl-C stopped the run.
  throw new Error(`Seeding the fixtures failed: ${(error as Error).message}`);
}
if (isAuthorizer && !token)
  console.error(`No token given: the authorizer will refuse ${samples.TOKEN_PLACEHOLDER}. Use --seed, --token or TOKEN.`);

if (name === samples.STREAM_EVENT) {
  // The Lambda handler's code with the local bus in place of EventBridge.
  const { processStreamBatch } = await import('#events/processor');
  const { fileBus } = await import('#local/eventFile');
  const started = process.hrtime.bigint();
  // In the workspace the run names, as every other sample (against a deployed table, the only one it may change).
  const batch = samples.prepareEvent(sample as DynamoDBStreamEvent, { workspace });
  const outcome = await processStreamBatch(batch.Records, fileBus(run.file('events.jsonl')));
  tell(`${name} handled the batch in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms`);
  run.show('events.jsonl', 'events published');
  console.log(JSON.stringify(outcome, null, 2));
  await finish(0);
}
if (name === samples.INBOUND_EVENT) {
  // The Lambda handler's code with the local dead-letter file in place of the SQS dead-letter queue.
  const { consumeInbound } = await import('#events/inbound');
  const { writeDeadLetter } = await import('#local/deadLetterFile');
  const deadLetterFile = run.file('dead-letters.jsonl');
  // Dated now: the events follow the project the run made, as a live product's would (else all are before_project).
  const event = samples.prepareEvent(sample as SQSEvent, { workspace, now: Date.now() });
  const outcome = await consumeInbound(event.Records, {
    put: (body, reason) => writeDeadLetter(deadLetterFile, body, reason),
  });
  tell(`${name} handled ${event.Records.length} messages`);
  run.show('dead-letters.jsonl', 'dead-lettered');
  console.log(JSON.stringify(outcome, null, 2));
  await finish(outcome.batchItemFailures.length ? 1 : 0);
}
if (name === samples.WEBHOOK_EVENT) {
  // The Lambda handler's code with the queue printed instead of sent: a retry it schedules is shown, not kept.
  const { consumeWebhookMessages } = await import('#webhooks/consumer');
  const event = samples.prepareEvent(sample as SQSEvent, { workspace });
  const outcome = await consumeWebhookMessages(event.Records, {
    later: async (message, delayMs) =>
      tell(
        `would ${message.kind === 'attempt' ? `retry ${message.delivery_id}` : `${message.kind} ${message.webhook_id}'s deliveries`} in ${Math.round(delayMs / 1000)} s`,
      ),
    deadLetter: async (_body, reason) => tell(`would dead-letter: ${reason}`),
  });
  tell(`${name} handled ${event.Records.length} messages`);
  console.log(JSON.stringify(outcome, null, 2));
  await finish(outcome.batchItemFailures.length ? 1 : 0);
}
const event = samples.prepareEvent(sample, { workspace, ...(token ? { token } : {}) });
const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(repoRoot, handlerFile);

// Held to the table access its deployed policy gives it, as the local stack holds every function.
const { asFunction } = await import('#local/tableAccess');
const { CONSUMER_TABLE_ACCESS, routeTableAccess } = await import('#lib/tableAccess');
const access = isAuthorizer ? CONSUMER_TABLE_ACCESS.authorizer : routeTableAccess(samples.routeNamed(name));
const started = process.hrtime.bigint();
try {
  const result = await asFunction(name, access, () => handler(event, lambdaContext(name)));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  tell(`${name} answered in ${ms.toFixed(1)} ms`);
  if (!isAuthorizer) run.show('webhook-retries.jsonl', 'queued on the webhook retry lane');
  console.log(JSON.stringify(result, null, 2));
  await finish(0);
} catch (error) {
  // What Lambda reports for a function error (a handler that throws; the authorizer answers a refused token with a Deny instead).
  console.log(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }, null, 2));
  await finish(1);
}
