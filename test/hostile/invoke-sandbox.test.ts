import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, test } from 'vitest';
import { localAccessKey } from '#local/database';
import { repoRoot } from '#lib/paths';
import { SAMPLE_PRINCIPAL } from '#local/sampleFixtures';
import { uniqueWorkspace } from '#support/api';
import { streamDrained } from '#support/settle';
import { localStack } from '#support/stack';
import { runTool, toolArgv, toolEnv } from '#support/tools';

/**
 * `npm run invoke` keeps to its sandbox: nothing of a run (its set-up's requests, the function's log
 * and metrics lines, the events and dead letters it writes) reaches the files of the stack it runs
 * beside, its temporary files go with it however it ends (Ctrl-C too), and it prints the function's
 * answer alone unless asked for more (--verbose).
 */
const stack = localStack();
// The tool finds this worker's stack as a user's shell finds theirs: through the file npm start writes in its data directory.
const dataDir = dirname(stack.logFile);
const temp = mkdtempSync(join(tmpdir(), 'pls-invoke-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
/** What a run left in its temporary folder (tsx's own compile cache, made by any tool, aside). */
const leftIn = (dir: string) => readdirSync(dir).filter((name) => !name.startsWith('tsx-'));
const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
const appended = (file: string, from: number) => readFileSync(file, 'utf8').slice(from);

async function sandboxTables(): Promise<string[]> {
  const db = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${stack.dynamodbPort}`,
    region: 'us-east-1',
    credentials: { accessKeyId: localAccessKey(), secretAccessKey: 'local' },
  });
  const tables = (await db.send(new ListTablesCommand({}))).TableNames ?? [];
  db.destroy();
  return tables.filter((t) => t.startsWith('invoke-sandbox-'));
}

describe('npm run invoke keeps to its sandbox', () => {
  test('nothing of a run reaches the stack’s files or the temporary folder; its output is the answer alone', async () => {
    await streamDrained();
    const ws = uniqueWorkspace('inv');
    const files = [stack.logFile, stack.metricsFile, stack.eventsFile, stack.inboundDeadLetterFile];
    const before = files.map(size);
    const own = mkdtempSync(join(temp, 'tmp-'));
    const env = { DATA_DIR: dataDir, TMPDIR: own };
    const ran = await Promise.all(
      ['get-project', 'stream-processor', 'inbound-consumer'].map((fn) => runTool('bin/invoke.ts', [fn, '--workspace', ws], env)),
    );
    for (const res of ran) {
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toBe('');
      expect(() => JSON.parse(res.stdout)).not.toThrow();
    }
    expect(JSON.parse(ran[0]!.stdout)).toMatchObject({ statusCode: 200 });
    for (const [i, file] of files.entries()) {
      const added = existsSync(file) ? appended(file, before[i]!) : '';
      expect(added, file).not.toContain(ws);
      expect(added, file).not.toContain(SAMPLE_PRINCIPAL.tokenId);
    }
    expect(leftIn(own)).toEqual([]);
    expect(await sandboxTables()).toEqual([]);
  });

  test('--verbose shows the stack, the sandbox, the log lines and the events written, on stderr', async () => {
    const own = mkdtempSync(join(temp, 'tmp-'));
    const res = await runTool('bin/invoke.ts', ['stream-processor', '--verbose', '--workspace', uniqueWorkspace('inv')], {
      DATA_DIR: dataDir,
      TMPDIR: own,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^Using the local stack npm start runs \(pid \d+\)/);
    expect(res.stderr).toMatch(/Running stream-processor in a sandbox table invoke-sandbox-\w+ made for this run/);
    expect(res.stderr).toMatch(/ INFO /);
    expect(res.stderr).toMatch(/events published:\n\{"version":"0"/);
    expect(leftIn(own)).toEqual([]);
  });

  test('Ctrl-C in the middle of a run removes its sandbox table and its temporary folder', async () => {
    const own = mkdtempSync(join(temp, 'tmp-'));
    const child = spawn(process.execPath, await toolArgv('bin/invoke.ts', ['delete-label']), {
      cwd: repoRoot,
      env: toolEnv({ DATA_DIR: dataDir, TMPDIR: own }),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The run's folder is the first thing it makes: interrupt it then, while it sets up (a run that
    // ends without making one fails below).
    const watcher = watch(own);
    const made = new Promise((resolve) => watcher.on('change', (_event, name) => String(name).startsWith('invoke-run-') && resolve(name)));
    await Promise.race([made, exited]);
    watcher.close();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(leftIn(own)).toEqual([]);
    expect(await sandboxTables()).toEqual([]);
  });
});
