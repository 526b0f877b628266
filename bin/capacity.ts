/**
 * npm run capacity: the capacity model (docs/capacity.md) from the service's own code paths, measured
 * on a DynamoDB Local of its own (in memory, on a free port; with DYNAMODB_LOCAL_SHARED=1, the one on
 * DYNAMODB_PORT, in a database of DYNAMODB_LOCAL_ACCESS_KEY's). See lib/capacity/scenarios.ts. Beside
 * the page, the routes' figures at the limits the stack derives its method throttles from
 * (lib/aws/routesAtLimits.json, read by lib/aws/methodThrottles.ts), and what each route's request draws on the
 * workspace's partitions, which the functions' workspace limits count (functions/commons/domain/routeLoads.json).
 *   --stdout   print the files, as JSON by path, instead of writing them (the test compares them with the files)
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { cliArguments, exitPlainlyOnError } from '#lib/cli';
import { repoRoot } from '#lib/paths';
import { dynamodbPort, ensureTable, sharedDynamoDbLocal, startDynamoDbLocal, useLocalDatabase } from '#local/database';
import { throwawayWebhookSecretsKey } from '#local/secrets';
import { routeProcessOutput } from '#local/logRouter';
import { freePort } from '#support/ports';

const { values } = await cliArguments({
  usage: `usage: npm run capacity [-- --stdout]   (measures every route and consumer on DynamoDB Local, writes docs/capacity.md
                                            and lib/aws/routesAtLimits.json)
  --stdout   print the files, as JSON by path, instead of writing them`,
  options: { stdout: 'boolean' },
});
// The deliveries it measures go to a listener of its own on loopback.
process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
// Its own database, its own main key of secrets at rest (nothing it seals outlives the run).
process.env.WEBHOOK_SECRETS_KEY ||= throwawayWebhookSecretsKey();
// The handlers' log and metric lines are not what this command shows.
const output = routeProcessOutput({
  logFile: join(tmpdir(), `capacity-${process.pid}-logs.jsonl`),
  metricsFile: join(tmpdir(), `capacity-${process.pid}-metrics.jsonl`),
  echo: false,
});
const shared = sharedDynamoDbLocal(dynamodbPort());
const database = shared ?? (await startDynamoDbLocal({ port: await freePort(), sharedDb: false }));
const hook = createServer((_req, res) => res.writeHead(204).end());
exitPlainlyOnError(() => Promise.all([database.stop(), new Promise((r) => hook.close(r))]));
await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));

useLocalDatabase(Number(new URL(database.endpoint).port));
// Imported only now: the shared DocumentClient reads its endpoint from the environment at load.
const { tableName } = await import('#store/table');
const { installRecorder } = await import('#lib/capacity/recorder');
const { measureEverything } = await import('#lib/capacity/scenarios');
const { modelRow } = await import('#lib/capacity/model');
const { modelMix } = await import('#lib/capacity/mix');
const { renderCapacity } = await import('#lib/capacity/render');
const { routesAtLimits } = await import('#lib/capacity/renderLimits');
const { routeLoads } = await import('#lib/capacity/routeLoads');

const client = new DynamoDBClient({ endpoint: database.endpoint });
await ensureTable(client, tableName());
client.destroy();
installRecorder();
const address = hook.address();
const webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/capacity`;
const measured = await measureEverything({ root: repoRoot, endpoint: database.endpoint, tableName: tableName(), webhookUrl });
const typical = measured.filter((m) => !m.atLimits);
const mix = modelMix(typical);
const atLimits = measured.filter((m) => m.atLimits).map(modelRow);
const loads = routeLoads(typical);
const files = {
  'docs/capacity.md': renderCapacity(typical.map(modelRow), mix, atLimits, loads),
  'lib/aws/routesAtLimits.json': `${JSON.stringify(routesAtLimits(atLimits), null, 2)}\n`,
  'functions/commons/domain/routeLoads.json': `${JSON.stringify(loads, null, 2)}\n`,
};

hook.close();
await database.stop();
await output.stop();
if (values.stdout) process.stdout.write(JSON.stringify(files));
else {
  for (const [path, text] of Object.entries(files)) writeFileSync(join(repoRoot, path), text);
  console.log(
    `docs/capacity.md, lib/aws/routesAtLimits.json and functions/commons/domain/routeLoads.json written: ${typical.length} routes and consumers measured, ${atLimits.length} requests at the limits.`,
  );
}
process.exit(0);
