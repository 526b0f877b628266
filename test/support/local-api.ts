import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { freePort } from './ports.ts';
import { toolArgv } from './tools.ts';

export interface LocalApi {
  url: string;
  dynamodbPort: number;
  process: ChildProcess;
  output: () => string;
  /** The environment its CLIs need besides DATA_DIR: the access key of its database, when it shares a DynamoDB Local. */
  cliEnv: Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs `npm start`'s entry point (bin/start.ts) on free ports, and waits for READY: built, as the tests
 * run the tools (test/support/toolBuilds.ts: about 1 s of CPU a start instead of 3), or with `asNpmRuns`
 * under tsx, as `npm start` runs it.
 * `extraArgs` defaults to an in-memory database; pass [] with DATA_DIR-less runs to persist in .data/.
 * `sharing`: the port of a DynamoDB Local that runs already (the test run's), for a stack in memory
 * that need not start its own: it gets a database of its own there (an access key of its own), and
 * starts in about a second instead of the JVM's several.
 */
export async function startLocalApi(
  opts: { args?: string[]; port?: number; dynamodbPort?: number; sharing?: number; env?: NodeJS.ProcessEnv; asNpmRuns?: boolean } = {},
): Promise<LocalApi> {
  const port = opts.port ?? (await freePort());
  const dynamodbPort = opts.sharing ?? opts.dynamodbPort ?? (await freePort());
  const cliEnv: Record<string, string> = opts.sharing ? { DYNAMODB_LOCAL_ACCESS_KEY: `stack${randomBytes(8).toString('hex')}` } : {};
  // A data directory of its own unless the caller gives one (the file that names the running stack for
  // the CLIs lives there): never the repository's .data/, where a developer's own npm start may be running.
  const ownDataDir = opts.env?.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'pls-api-'));
  const argv = await toolArgv('bin/start.ts', opts.args ?? ['--in-memory'], { asNpmRuns: opts.asNpmRuns ?? false });
  const child = spawn(process.execPath, argv, {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: '',
      // Logs and metrics as deployed (the test workers' own silence is not the API's), kept in files only.
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_DISABLED: 'false',
      LOG_ECHO: '0',
      ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}),
      ...(opts.sharing ? { DYNAMODB_LOCAL_SHARED: '1', ...cliEnv } : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`local API did not start within 90 s:\n${output}`)), 90_000);
    const check = () => {
      if (output.includes('READY ')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local API exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (ownDataDir) void exited.then(() => rmSync(ownDataDir, { recursive: true, force: true }));
  return {
    url: `http://127.0.0.1:${port}`,
    dynamodbPort,
    process: child,
    output: () => output,
    cliEnv,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
