import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from './database.ts';
import { useLocalRetryLane } from '#webhooks/queue';
import { routeProcessOutput } from './logRouter.ts';
import { fileRetryLane } from './webhookQueue.ts';

/**
 * Where `npm run invoke` runs a sample, apart from the stack `npm start` runs: a temporary folder for
 * everything the run writes (the functions' log and metrics lines, the stream processor's events, the
 * consumer's dead letters) and, locally, a sandbox table of its own on the stack's DynamoDB Local.
 * Both go when the run ends, however it ends (its answer, an error, Ctrl-C): nothing of it reaches
 * the stack's table or its files. The log lines are shown on stderr only when `verbose`.
 */
export interface InvokeRun {
  /** The sandbox table (locally), or undefined against a deployed table. */
  table: string | undefined;
  /** A file of the run's folder. */
  file(name: string): string;
  /** With `verbose`, shows on stderr what the run wrote to the file (events, dead letters). */
  show(name: string, what: string): void;
  /** Ends the run with `code` (130 once Ctrl-C stopped it): the sandbox table first, the folder as the process exits. */
  end(code: number): Promise<never>;
}

export async function startInvokeRun(opts: { endpoint: string | undefined; verbose: boolean }): Promise<InvokeRun> {
  let sandbox: { table: string; client: DynamoDBClient; created: Promise<unknown> } | undefined;
  let removing: Promise<unknown> | undefined;
  let interrupted = false;
  const end = async (code: number): Promise<never> => {
    removing ??= sandbox?.created
      .catch(() => undefined)
      .then(() => sandbox!.client.send(new DeleteTableCommand({ TableName: sandbox!.table })))
      .catch(() => undefined);
    await removing;
    process.exit(interrupted ? 130 : code);
  };
  // Before anything is made: Ctrl-C ends the run (what was under way fails as its table goes: no
  // sentence for that); every way out removes the folder, synchronously, in the same turn as it is
  // made (no signal is handled in between).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      interrupted = true;
      for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
        process.removeAllListeners(event);
        process.on(event, () => undefined);
      }
      void end(130);
    });
  const dir = mkdtempSync(join(tmpdir(), 'invoke-run-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => join(dir, name);
  // As `sam local invoke` does: the answer alone on stdout; the log lines on stderr when asked for.
  routeProcessOutput({ logFile: file('logs.jsonl'), metricsFile: file('metrics.jsonl'), echo: opts.verbose ? 'stderr' : false });
  // What a route queues on the webhook retry lane (a recovery) is kept in the run's folder: no deliverer runs here.
  useLocalRetryLane(fileRetryLane(file('webhook-retries.jsonl')));
  if (opts.endpoint) {
    const table = `invoke-sandbox-${randomBytes(4).toString('hex')}`;
    const client = new DynamoDBClient({ endpoint: opts.endpoint });
    // No stream: nothing reads it, and DynamoDB Local keeps a stream's records a day in the database the
    // user's own stack reads (each of its stream reads costs time in proportion to all of them).
    const created = client.send(new CreateTableCommand({ ...createTableInput(table), StreamSpecification: undefined }));
    sandbox = { table, client, created };
    await created;
    process.env.TABLE_NAME = table;
  }
  return {
    table: sandbox?.table,
    file,
    show(name, what) {
      if (!opts.verbose) return;
      const text = existsSync(file(name)) ? readFileSync(file(name), 'utf8').trimEnd() : '';
      console.error(text ? `${what}:\n${text}` : `${what}: none`);
    },
    end,
  };
}
