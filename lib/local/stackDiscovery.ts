// The AWS SDK's Node 20 notice is switched off before any SDK module loads (as in database.ts).
import { localWebhookSecretsKey } from './secrets';
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

/** What the stack file of a data directory says, and whether the process it names still runs. */
function stackFile(dir: string): { stack: RunningStack; alive: boolean; file: string } | undefined {
  const file = join(dir, STACK_FILE);
  let stack: RunningStack;
  try {
    stack = JSON.parse(readFileSync(file, 'utf8')) as RunningStack;
    if (!Number.isInteger(stack.pid) || stack.pid <= 0) return undefined;
  } catch {
    return undefined;
  }
  try {
    process.kill(stack.pid, 0); // throws ESRCH when no such process
    return { stack, alive: true, file };
  } catch (error) {
    // EPERM: a process of another user has that pid; it runs.
    return { stack, alive: (error as NodeJS.ErrnoException).code === 'EPERM', file };
  }
}

/**
 * The local stack `npm start` runs on this data directory (DATA_DIR), if one does (its process alive).
 * A file left by a stack that died without removing it (kill -9) counts as none: npm start replaces it.
 */
export function runningStack(dir = dataDir): RunningStack | undefined {
  const found = stackFile(dir);
  return found?.alive ? found.stack : undefined;
}

/**
 * For the command-line tools: the stack `npm start` runs, or undefined when none has written its file.
 * When the file names a process that is gone, the tool stops with a sentence naming the file, the
 * stack's ports and what to do, rather than looking for a stack on the default ports.
 */
export function findStack(dir = dataDir): RunningStack | undefined {
  const found = stackFile(dir);
  if (!found || found.alive) return found?.stack;
  const { stack, file } = found;
  const apiPort = new URL(stack.apiUrl).port;
  const settings = [apiPort !== '3000' ? `PORT=${apiPort}` : '', stack.dynamodbPort !== 8000 ? `DYNAMODB_PORT=${stack.dynamodbPort}` : '']
    .filter(Boolean)
    .join(' ');
  cliError(
    `The local stack recorded in ${file} (pid ${stack.pid}, API on port ${apiPort}, DynamoDB Local on port ${stack.dynamodbPort}) is no longer running: it stopped without cleaning up. Start it again with ${settings ? `${settings} ` : ''}npm start (it replaces the file).`,
  );
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

/** Where the local database is: DYNAMODB_PORT, else the stack `npm start` runs, else the default port. */
interface LocalTarget {
  port: number;
  given: boolean;
  stack: RunningStack | undefined;
  endpoint: string;
}

/**
 * Points the AWS SDK at the local database (as useLocalStack does) without asking it anything yet: for
 * a tool that must load the service's modules to check its arguments before it says which stack it uses.
 */
export function localTarget(): LocalTarget {
  const given = process.env.DYNAMODB_PORT !== undefined;
  const stack = given ? undefined : findStack();
  const port = stack?.dynamodbPort ?? dynamodbPort();
  return { port, given, stack, endpoint: useLocalDatabase(port) };
}

/**
 * For the CLIs: the local database of the stack `npm start` runs (found through the file it writes,
 * unless DYNAMODB_PORT says where), checked to answer, and said on stderr (unless `quiet`). A clear
 * sentence and exit 1 when nothing answers there.
 */
export async function useLocalStack(opts: { quiet?: boolean } = {}, target = localTarget()): Promise<string> {
  const { port, given, stack, endpoint } = target;
  if (!(await portAnswers(port))) {
    cliError(
      stack
        ? `No DynamoDB Local answers on port ${port}, where the local stack recorded in ${join(dataDir, STACK_FILE)} (pid ${stack.pid}) runs it: stop that npm start (Ctrl-C in its terminal) and start it again.`
        : `No DynamoDB Local answers on port ${port}${given ? ' (DYNAMODB_PORT)' : ''}: start the local stack with npm start in another terminal${given ? ', or set DYNAMODB_PORT to the port it uses' : ''}.`,
    );
  }
  // Something listening is not enough: the API's port, say, answers HTTP too, but not as DynamoDB.
  const notDynamoDb = await dynamoDbRefusal(endpoint);
  if (notDynamoDb)
    cliError(
      `Port ${port}${given ? ' (DYNAMODB_PORT)' : ''} answers, but not as DynamoDB Local (${notDynamoDb}): set DYNAMODB_PORT to the DynamoDB Local port npm start prints, or leave it unset.`,
    );
  // What the local stack seals webhook secrets under (kept in its data folder), for tools that run handlers.
  process.env.WEBHOOK_SECRETS_KEY ||= localWebhookSecretsKey(dataDir);
  if (!opts.quiet)
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
