import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { describe, expect, test } from 'vitest';
import { listTokens } from '#domain/tokens';
import { uniqueWorkspace } from '#support/api';

const run = promisify(execFile);

/** `npm run token -- ...` as a user runs it, against the test run's DynamoDB Local. */
async function tokenCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/token.ts', ...args], {
      env: { ...process.env, DYNAMODB_PORT: String(inject('dynamodbPort')), TABLE_NAME: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const who = ['--name', 'Ada', '--username', 'ada'];

describe('the token CLI refuses every bad argument, writes nothing and exits non-zero', () => {
  const ws = uniqueWorkspace('cli');
  test.each([
    ['empty scopes (an unset variable)', ['--workspace', ws, ...who, '--scopes', '']],
    ['only separators as scopes', ['--workspace', ws, ...who, '--scopes', ' , ']],
    ['an unknown scope', ['--workspace', ws, ...who, '--scopes', 'projects:read,admin']],
    ['a zero lifetime', ['--workspace', ws, ...who, '--expires-in', '0d']],
    ['a lifetime of 0 minutes', ['--workspace', ws, ...who, '--expires-in', '0m']],
    ['a lifetime beyond any date', ['--workspace', ws, ...who, '--expires-in', '99999999999999999999d']],
    ['a lifetime over ten years', ['--workspace', ws, ...who, '--expires-in', '3651d']],
    ['a negative lifetime', ['--workspace', ws, ...who, '--expires-in', '-5d']],
    ['an upper-case workspace', ['--workspace', ws.toUpperCase(), ...who]],
    ['an empty workspace in a list', ['--workspace', `${ws},,other`, ...who]],
    ['a path in a workspace', ['--workspace', `${ws},../x`, ...who]],
    ['an empty workspace', ['--workspace', '', ...who]],
    ['an empty name', ['--workspace', ws, '--name', ' ', '--username', 'ada']],
    ['an empty username', ['--workspace', ws, '--name', 'Ada', '--username', '']],
    ['a username with a newline', ['--workspace', ws, '--name', 'Ada', '--username', 'ada\nroot']],
    ['an unknown option', ['--workspace', ws, ...who, '--admin']],
  ])('%s', async (_case, args) => {
    const res = await tokenCli(['create', ...args]);
    expect(res.code, res.stdout).not.toBe(0);
    expect(res.stderr).toMatch(/\S/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stdout).not.toMatch(/pls_/);
    expect(await listTokens(ws)).toEqual([]);
  });

  test('a good create still works and lists', async () => {
    const res = await tokenCli(['create', '--workspace', ws, ...who, '--scopes', 'labels:read', '--expires-in', '30d', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const created = JSON.parse(res.stdout);
    expect(created).toMatchObject({ workspaces: [ws], scopes: ['labels:read'], owner: { name: 'Ada', username: 'ada' } });
    expect(Date.parse(created.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await listTokens(ws)).map((t) => t.id)).toEqual([created.id]);
  });

  test('revoke of an unknown id fails without a stack trace', async () => {
    const res = await tokenCli(['revoke', 'nosuchtokenidxxx']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/no token/);
  });
});
