// The AWS SDK's Node 20 notice is switched off before any SDK module loads (as in database.ts).
import '#lib/sdkNotice';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { cliError } from '#lib/cli';
import { repoRoot } from '#lib/paths';
import { dynamodbPort, useLocalDatabase } from './database.ts';

/**
 * How the command-line tools find the local stack `npm start` runs: the file it writes in its data
 * directory while it runs, whether a port answers, and the one call every tool makes to use it.
 */

/** Where `npm start` keeps DynamoDB Local's data (DATA_DIR overrides; tests use a temporary one). */
export const dataDir = process.env.DATA_DIR || join(repoRoot, '.data');

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
