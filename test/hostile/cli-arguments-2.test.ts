import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { everyToolHonoursItsArguments, expectUsageError } from '#support/cliArguments';
import { npmTools, runTool, toolEnv, type Ran } from '#support/tools';

// The second half of the tools (test/support/cliArguments.ts), then the parser's other mistakes.
everyToolHonoursItsArguments(2);

const tools = npmTools();
describe('the other mistakes of the parser come first too', () => {
  const tool = (script: string) => tools.find((t) => t.script === script)!.file;
  const env = { DATA_DIR: join(tmpdir(), 'pls-cli-args-none') };

  test.each([
    ['token', ['list', '--workspace'], /^--workspace needs a value: give it as --workspace <value>\.$/],
    ['token', ['revoke'], /^revoke needs a token id$/],
    ['token', [], /^Missing argument: this command takes a command \(create, list, limits, revoke, sync-keys or sweep-keys\)/],
    ['openapi', ['now'], /^Unexpected argument "now": this command takes no arguments\.$/],
    ['emit', ['Task Created'], /^Missing argument: this command takes a detail-type and a detail \(a JSON object\)\.$/],
    ['events:follow', ['--all=yes'], /^--all takes no value: give it alone\.$/],
    ['webhooks:listen', ['--secret'], /^--secret needs a value/],
    // A typo is answered with what was meant.
    ['token', ['list', '--workpace', 'acme-corp'], /^Unknown option --workpace: did you mean --workspace\?$/],
    ['token', ['crete'], /^unknown command crete: did you mean create\?$/],
    ['events:follow', ['--al'], /^Unknown option --al: did you mean --all\?$/],
  ])('%s %j', async (script, args, sentence) => {
    expectUsageError(await runTool(tool(script), args as string[], env), sentence);
  });

  test('options given before `--` are named as npm’s, with the command as it should be typed', async () => {
    // As a new user types it: npm keeps --name, --username, --all-scopes and --no-expiry for itself.
    const res = await new Promise<Ran>((resolve) => {
      const args = ['run', '-s', 'token', 'create', '--name', 'Ada', '--username', 'ada', '--all-scopes', '--no-expiry'];
      execFile('npm', args, { cwd: repoRoot, env: toolEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
    expectUsageError(
      res,
      /^npm took --name, --username, --all-scopes and --no-expiry for itself: put `--` before the tool's arguments: npm run token -- create --name \.\.\. --username \.\.\. --all-scopes --no-expiry$/,
    );
    expect(res.stderr).toMatch(/The `--` is needed/);
  });
});

describe('npm run deploy and npm run bootstrap check for AWS credentials and a Region before CDK synthesizes', () => {
  // No AWS_* setting and no ~/.aws; nor the machine's own role (a CI runner on EC2 would lend its own).
  const home = mkdtempSync(join(tmpdir(), 'pls-preflight-home-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('npm_')));
  /** bin/preflight.ts as package.json's scripts run it, with `command` in place of cdk's. */
  const preflight = (command: string[], env: Record<string, string> = {}) =>
    new Promise<Ran & { ms: number }>((resolve) => {
      const started = Date.now();
      const argv = ['--import', 'tsx', 'bin/preflight.ts', ...command];
      const options = {
        cwd: repoRoot,
        env: { ...clean, HOME: home, AWS_EC2_METADATA_DISABLED: 'true', npm_lifecycle_event: 'deploy', ...env },
        timeout: 30_000,
      };
      execFile(process.execPath, argv, options, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr, ms: Date.now() - started }),
      );
    });
  /** A command in cdk's place that prints the arguments it was given and ends with status 3. */
  const echo = [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1))); process.exit(3)', '--'];
  const cdkArguments = ['ProjectLabelService-*', '--require-approval', 'never', '-c', 'stage=prod'];

  test.concurrent('with neither, one line says how to set both, within seconds, and nothing runs', async () => {
    const res = await preflight([...echo, ...cdkArguments]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^npm run deploy needs AWS credentials and a Region and finds neither: run `aws configure`.*AWS_PROFILE.*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.*AWS_REGION.*\. Nothing was synthesized or deployed\.\n$/,
    );
    expect(res.ms).toBeLessThan(5_000);
  });

  test.concurrent('with keys and a Region (no request to AWS), the command runs with every argument npm passed, and ends as it ends', async () => {
    const keys = { AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    const res = await preflight([...echo, ...cdkArguments], { ...keys, AWS_REGION: 'eu-west-1' });
    expect(res).toMatchObject({ code: 3, stdout: JSON.stringify(cdkArguments), stderr: '' });
    const noRegion = await preflight([...echo, ...cdkArguments], keys);
    expect(noRegion.code).toBe(1);
    expect(noRegion.stderr).toMatch(/^npm run deploy needs an AWS Region and finds none: set AWS_REGION .*\n$/);
  });

  test.concurrent('--help after `--` reaches the command (cdk shows its options) after the usage, with nothing checked', async () => {
    const res = await preflight([...echo, ...cdkArguments, '--help']);
    expect(res.code, res.stderr).toBe(3);
    expect(res.stdout).toMatch(/^usage: npm run deploy -- \[cdk deploy options\][^]*\n\["ProjectLabelService-\*",.*"--help"\]$/);
    expect(res.stderr).toBe('');
  });
});
