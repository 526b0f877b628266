import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { builtTools } from './toolBuilds.ts';

/** How a command-line tool of bin/ ended: its exit code (-1 when killed) and what it printed. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** package.json's scripts: the names `npm run` takes, and their commands. */
export function packageScripts(): Record<string, string> {
  return (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
}

/** Every tool `npm run` starts (`node --import tsx bin/<file>.ts` in package.json's scripts): its script name and file. */
export function npmTools(): { script: string; file: string }[] {
  return Object.entries(packageScripts()).flatMap(([script, command]) => {
    const file = /^node --import tsx (bin\/[\w-]+\.ts)$/.exec(command)?.[1];
    return file ? [{ script, file }] : [];
  });
}

/**
 * What a new user's shell holds (none of the test run's PORT, DYNAMODB_PORT, TABLE_NAME, file
 * settings or silenced logs and metrics), plus `env`.
 */
export function toolEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const unset = ['PORT', 'DYNAMODB_PORT', 'DYNAMODB_ENDPOINT', 'TABLE_NAME', 'API_URL', 'EVENTS_FILE', 'LOG_FILE', 'METRICS_FILE'];
  unset.push('POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_DISABLED');
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !unset.includes(k)));
  return { ...clean, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env };
}

/** Node's arguments that start a tool of bin/: built (toolBuilds.ts), or as `npm run` starts it with `asNpmRuns`. */
export async function toolArgv(file: string, args: string[], { asNpmRuns = false } = {}): Promise<string[]> {
  // Recording what each test file executes (coverage-record.ts) needs each source file run as itself, not built into a bundle.
  const asSources = asNpmRuns || Boolean(process.env.TEST_MAP_RECORD);
  const built = asSources ? undefined : (await builtTools(() => npmTools().map((t) => t.file))).get(file);
  return built ? [built, ...args] : ['--import', 'tsx', file, ...args];
}

/**
 * Runs a tool of bin/ in toolEnv(env), killed after `timeoutMs`: built (toolBuilds.ts), or with
 * `asNpmRuns` as `npm run` starts it (`node --import tsx bin/<tool>.ts`).
 */
export async function runTool(
  file: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
  { asNpmRuns = false } = {},
): Promise<Ran> {
  const argv = await toolArgv(file, args, { asNpmRuns });
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: repoRoot, env: toolEnv(env), timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
