import { localStack } from '#support/stack';
import { describe, expect, test } from 'vitest';
import { listTokens } from '#domain/tokens';
import { uniqueWorkspace } from '#support/api';
import { runTool, type Ran } from '#support/tools';

/** `npm run token -- ...` against the test run's DynamoDB Local (the tool built once: test/support/toolBuilds.ts). */
function tokenCli(args: string[]): Promise<Ran> {
  return runTool('bin/token.ts', args, { DYNAMODB_PORT: String(localStack().dynamodbPort), TABLE_NAME: '' });
}

const who = ['--name', 'Ada', '--username', 'ada'];

/** The scope and lifetime choices every create must make, for those of them `args` leaves out. */
function choicesMissingFrom(args: string[]): string[] {
  return [...(args.includes('--scopes') ? [] : ['--all-scopes']), ...(args.includes('--expires-in') ? [] : ['--no-expiry'])];
}

describe('the token CLI refuses every bad argument, writes nothing and exits non-zero', () => {
  const ws = uniqueWorkspace('cli');
  // Side by side (five at a time): each case is a process of its own that mostly waits for its start-up.
  test.concurrent.each([
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
    ['a username spelled as a key owner', ['--workspace', ws, '--name', 'Ada', '--username', 'token:abcdefghijklmnop']],
    ['a username spelled as a key owner in full width', ['--workspace', ws, '--name', 'Ada', '--username', 'ＴＯＫＥＮ：ada']],
    ['an unknown option', ['--workspace', ws, ...who, '--admin']],
    ['a zero rate', ['--workspace', ws, ...who, '--rate', '0']],
    ['a rate in exponent notation', ['--workspace', ws, ...who, '--rate', '1e3']],
    ['a rate that is not a number', ['--workspace', ws, ...who, '--rate', 'fast']],
    ['a rate over the account limit', ['--workspace', ws, ...who, '--rate', '10001']],
    ['a negative burst', ['--workspace', ws, ...who, '--burst', '-1']],
    ['a fractional burst', ['--workspace', ws, ...who, '--burst', '1.5']],
    ['an empty burst', ['--workspace', ws, ...who, '--burst', '']],
  ])('%s', async (_case, args) => {
    const res = await tokenCli(['create', ...args, ...choicesMissingFrom(args)]);
    expect(res.code, res.stdout).not.toBe(0);
    expect(res.stderr).toMatch(/\S/);
    // Refused for the mistake named, not for a choice left out.
    expect(res.stderr).not.toMatch(/needs you to choose/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stdout).not.toMatch(/pls_/);
    expect(await listTokens(ws)).toEqual([]);
  });

  test.concurrent.each([
    ['neither choice', [], /its scopes \(--scopes .*--all-scopes\) and its lifetime \(--expires-in 30d, or --no-expiry\)/],
    ['no scopes chosen', ['--expires-in', '30d'], /choose its scopes \(--scopes projects:read,labels:read, or --all-scopes\); for example/],
    ['no lifetime chosen', ['--scopes', 'labels:read'], /choose its lifetime \(--expires-in 30d, or --no-expiry\); for example/],
  ])('create with %s exits 2, names both ways to choose with an example, and writes nothing', async (_case, args, said) => {
    const res = await tokenCli(['create', '--workspace', ws, ...who, ...(args as string[])]);
    expect(res.code, res.stdout).toBe(2);
    expect(res.stderr).toMatch(said as RegExp);
    expect(res.stderr).toMatch(
      /for example: npm run token -- create --workspace \S+ --name "Ada" --username ada --scopes projects:read,labels:read --expires-in 30d/,
    );
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

  test('rate and burst: the defaults, set at creation, changed with `limits`, shown by `list`', async () => {
    const lws = uniqueWorkspace('cli');
    const plain = JSON.parse((await tokenCli(['create', '--workspace', lws, ...who, '--all-scopes', '--no-expiry', '--json'])).stdout);
    expect(plain.rate_limit).toEqual({ rate: 100, burst: 200 });
    const slow = JSON.parse(
      (await tokenCli(['create', '--workspace', lws, ...who, '--all-scopes', '--no-expiry', '--rate', '2.5', '--burst', '5', '--json']))
        .stdout,
    );
    expect(slow.rate_limit).toEqual({ rate: 2.5, burst: 5 });
    const changed = await tokenCli(['limits', slow.id, '--rate', '20', '--burst', '40']);
    expect(changed.code, changed.stderr).toBe(0);
    expect((await listTokens(lws)).find((t) => t.id === slow.id)?.rate_limit).toEqual({ rate: 20, burst: 40 });
    expect((await tokenCli(['list', '--workspace', lws])).stdout).toMatch(new RegExp(`${slow.id} .* 20/s burst 40`));
    // Refused: missing or bad limits, an unknown token, a revoked one; nothing changes.
    for (const args of [
      [slow.id, '--rate', '5'],
      [slow.id, '--rate', '0', '--burst', '5'],
      ['nosuchtokenidxxx', '--rate', '5', '--burst', '5'],
    ]) {
      const res = await tokenCli(['limits', ...args]);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await tokenCli(['revoke', plain.id])).code).toBe(0);
    expect((await tokenCli(['limits', plain.id, '--rate', '5', '--burst', '5'])).code).not.toBe(0);
    expect((await listTokens(lws)).find((t) => t.id === slow.id)?.rate_limit).toEqual({ rate: 20, burst: 40 });
  });

  test.each(['sync-keys', 'sweep-keys'])('%s is for a deployed stage only', async (command) => {
    const res = await tokenCli([command]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^${command} is for a deployed stage`, 'm'));
  });

  test('revoke of an unknown id fails without a stack trace', async () => {
    const res = await tokenCli(['revoke', 'nosuchtokenidxxx']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/no token/);
  });
});
