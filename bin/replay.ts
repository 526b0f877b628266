/**
 * npm run replay [-- --dry-run] [-- --queue-url <url> --bus <name>]: writes what a stream batch the
 * stream processor gave up on should have written (history entries, counters, cascades, events and, deployed,
 * webhook deliveries), through the processor's own code (lib/replay/streamFailures.ts). Locally it replays
 * the records `npm start` set aside (STREAM_FAILURES_FILE); against a deployed table (TABLE_NAME) the batches
 * described on the stack's stream failure queue (`--queue-url`, output StreamFailuresQueueUrl), published
 * on its bus (`--bus`, output EventBusName). Exit status 1 while any still fails.
 */
import '#lib/sdkNotice';
import { join } from 'node:path';
import { cliArguments, exitPlainlyOnError, usageError } from '#lib/cli';
import { isLocalDatabase } from '#local/database';
import { dataDir, runningStack, useLocalStack } from '#local/stackDiscovery';

const usage =
  'usage: npm run replay [-- --dry-run]   (locally: the stream records npm start set aside)\n' +
  '       TABLE_NAME=<table> npm run replay -- --queue-url <StreamFailuresQueueUrl> --bus <EventBusName> [--dry-run]';
const { values } = await cliArguments({ usage, options: { 'dry-run': 'boolean', 'queue-url': 'string', bus: 'string' } });
exitPlainlyOnError();
const dryRun = values['dry-run'] === true;
const { processStreamBatch } = await import('#events/processor');
const { replayFile, replayQueue } = await import('#lib/replay/streamFailures');

let report;
if (isLocalDatabase()) {
  await useLocalStack();
  const file = process.env.STREAM_FAILURES_FILE || join(dataDir, 'events.failures.jsonl');
  const { fileBus } = await import('#local/eventFile');
  const bus = fileBus(process.env.EVENTS_FILE || runningStack()?.eventsFile || join(dataDir, 'events.jsonl'));
  report = await replayFile(file, (records) => processStreamBatch(records, bus), dryRun);
} else {
  const queueUrl = values['queue-url'];
  const busName = values.bus;
  if (!queueUrl || !busName)
    usageError('A deployed table needs --queue-url and --bus (the stack outputs StreamFailuresQueueUrl and EventBusName).', usage);
  const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBStreamsClient } = await import('@aws-sdk/client-dynamodb-streams');
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  const { eventBridgeBus } = await import('#events/bus');
  const { tableName } = await import('#store/table');
  const { Table } = await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: tableName() }));
  // The stack's rules match events on the table they came from.
  const bus = eventBridgeBus({ busName, resources: [Table!.TableArn!] });
  report = await replayQueue({
    sqs: new SQSClient({}),
    queueUrl,
    streams: new DynamoDBStreamsClient({}),
    handle: (records) => processStreamBatch(records, bus),
    dryRun,
  });
}
const done = dryRun ? 'would be replayed' : 'replayed';
console.log(`${report.replayed} batch(es) or record(s) ${done} (${report.records} records)`);
for (const f of report.failed) console.log(`STILL FAILING ${f.what}: ${f.error}`);
for (const e of report.expired) console.log(`EXPIRED ${e}: no longer on the stream (24 h); npm run repair sets the counters it moved`);
if (report.failed.length) process.exitCode = 1;
