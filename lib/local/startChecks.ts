import { cliError } from '#lib/cli';
import { targetPolicy } from '#webhooks/addresses';
import { dataDir, portAnswers, runningStack } from './stackDiscovery';

/**
 * What `npm start` checks before it starts anything, each refusal one sentence that says what to do:
 * another start on the same data, ports taken or given twice. A suggested port is one found free.
 */
export async function checkStart(opts: {
  port: number;
  dbPort: number;
  embedded: boolean;
  inMemory: boolean;
  shared: boolean;
}): Promise<void> {
  const { port, dbPort, embedded, inMemory, shared } = opts;
  // In memory, the data folder is no matter: only the ports are.
  const already = embedded && !inMemory ? runningStack() : undefined;
  if (already)
    cliError(
      `npm start is already running on ${dataDir} (pid ${already.pid}, API ${already.apiUrl}): stop it first (Ctrl-C in its terminal), or start another with a DATA_DIR of its own, or one in memory beside it: npm start -- --in-memory (with PORT and DYNAMODB_PORT of its own).`,
    );
  if (embedded && port !== 0 && port === dbPort)
    cliError(
      `PORT and DYNAMODB_PORT are both ${port}: give each a port of its own, e.g. DYNAMODB_PORT=${await freePortFrom(dbPort + 1, [port])}.`,
    );
  if (port !== 0 && (await portAnswers(port)))
    cliError(
      `Port ${port} is in use (another npm start, or another program): set PORT to a free port, e.g. PORT=${await freePortFrom(port + 1, [dbPort])} npm start.`,
    );
  if (embedded && !shared && (await portAnswers(dbPort)))
    cliError(
      `Port ${dbPort} is in use (another npm start's DynamoDB Local, or another program): set DYNAMODB_PORT to a free port, e.g. DYNAMODB_PORT=${await freePortFrom(dbPort + 1, [port])} npm start.`,
    );
}

/** The first port from `from` that nothing answers on and that is none of `taken` (the other port this start will use). */
async function freePortFrom(from: number, taken: number[]): Promise<number> {
  for (let port = from; port < from + 100 && port < 65_536; port++) if (!taken.includes(port) && !(await portAnswers(port))) return port;
  return from;
}

/** The start's line on webhooks: where they may deliver, and the setting that changes it. */
export function webhookTargetsLine(env: NodeJS.ProcessEnv = process.env): string {
  return targetPolicy(env).allowPrivate
    ? 'Webhooks deliver to any address, this machine and private networks included (WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)'
    : 'Webhooks deliver to public https addresses only (start with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true to deliver to this machine)';
}
