import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { freePort } from '#support/ports';
import { runTool } from '#support/tools';

/**
 * After `npm start` dies hard (kill -9), its stack file stays behind naming a process that is gone.
 * Every tool that finds the stack through it says so, naming the file, the stack's ports and what to
 * do, rather than looking for a stack on the default ports; `npm start` replaces the file silently.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'pls-stale-stack-'));
const stackFile = join(dataDir, 'local-stack.json');
let api: LocalApi | undefined;
afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The pid of a process that has ended. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.once('exit', () => resolve(child.pid!));
  });
}

/** The stack file a stack on ports other than the defaults leaves when it is killed with -9. */
async function leaveStaleStackFile(): Promise<{ pid: number; apiPort: number; dynamodbPort: number }> {
  const [pid, apiPort, dynamodbPort] = await Promise.all([deadPid(), freePort(), freePort()]);
  const stack = { pid, apiUrl: `http://127.0.0.1:${apiPort}`, dynamodbPort, startedAt: new Date().toISOString() };
  writeFileSync(stackFile, JSON.stringify(stack, null, 2));
  return { pid, apiPort, dynamodbPort };
}

describe('a stack file left by a stack killed with -9', () => {
  test('every tool that finds the stack names the file, the ports and what to do, and does nothing else', async () => {
    const { pid, apiPort, dynamodbPort } = await leaveStaleStackFile();
    const sentence =
      `The local stack recorded in ${stackFile} (pid ${pid}, API on port ${apiPort}, DynamoDB Local on port ${dynamodbPort}) is no longer running: ` +
      `it stopped without cleaning up. Start it again with PORT=${apiPort} DYNAMODB_PORT=${dynamodbPort} npm start (it replaces the file).\n`;
    const tools: [string, string[]][] = [
      ['token', ['list', '--workspace', 'acme-corp']],
      ['check-table', []],
      ['repair', ['--dry-run']],
      ['replay', ['--dry-run']],
      ['rekey', ['--dry-run']],
      ['invoke', ['get-project']],
      ['emit', ['Task Created', '{"company_slug":"acme-corp","project_slug":"web","task_uuid":"t-1"}']],
      // It would follow a file forever: it must stop at once instead.
      ['follow-events', []],
    ];
    const ran = await Promise.all(tools.map(([tool, args]) => runTool(`bin/${tool}.ts`, args, { DATA_DIR: dataDir }, 30_000)));
    for (const [i, res] of ran.entries()) {
      expect({ tool: tools[i]![0], ...res }).toEqual({ tool: tools[i]![0], code: 1, stdout: '', stderr: sentence });
    }
  });

  test('npm start replaces it without a word, and the tools find the new stack', async () => {
    await leaveStaleStackFile();
    api = await startLocalApi({ args: ['--in-memory'], env: { DATA_DIR: dataDir } });
    expect(api.output()).not.toMatch(/no longer running|local-stack\.json/);
    expect(JSON.parse(readFileSync(stackFile, 'utf8'))).toMatchObject({ pid: api.process.pid, apiUrl: api.url });
    const listed = await runTool('bin/token.ts', ['list', '--workspace', 'acme-corp'], { DATA_DIR: dataDir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe(
      `Using the local stack npm start runs (pid ${api.process.pid}): API ${api.url}, DynamoDB Local on port ${api.dynamodbPort}.\n`,
    );
  });
});
