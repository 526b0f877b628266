import { execFile } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { expect, test } from 'vitest';
import { ASYNCAPI_FILE } from '#lib/asyncapi/document';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';

/**
 * The API's documents as the tools people point at them read them: openapi.json by Redocly CLI's
 * recommended rules and Spectral's `spectral:oas`, asyncapi.json by Spectral's `spectral:asyncapi`
 * (.spectral.yaml), with no error and no warning (hints and notes are let through). The files are
 * the builders' output (test/integration/openapi.test.ts and test/unit/asyncapi.test.ts say so).
 */
// The linters of node_modules/.bin, without Redocly CLI's telemetry and update check.
const options = {
  cwd: repoRoot,
  env: {
    ...process.env,
    PATH: `${join(repoRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    NO_COLOR: '1',
  },
  maxBuffer: 64 * 1024 * 1024,
};

/** What a linter printed: it exits non-zero when it finds an error, and still says what it found. */
const printed = (resolve: (out: string) => void, reject: (error: Error) => void) => (error: Error | null, stdout: string, stderr: string) =>
  stdout.trim() || !error ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`));

/** Redocly CLI's recommended rules: every error and warning, as `rule at pointer: message`. */
async function redocly(file: string): Promise<string[]> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      'redocly',
      ['lint', file, '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'],
      options,
      printed(resolve, reject),
    ),
  );
  const { problems } = JSON.parse(out) as {
    problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
  };
  return problems
    .filter((p) => p.severity === 'error' || p.severity === 'warn')
    .map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '#'}: ${p.message}`);
}

const SPECTRAL_SEVERITY = ['error', 'warning'];

/** Spectral's rules of .spectral.yaml: every error and warning, as `rule at path: message`. */
async function spectral(file: string): Promise<string[]> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'], options, printed(resolve, reject)),
  );
  const results = JSON.parse(out || '[]') as { code: string; severity: number; message: string; path: string[] }[];
  return results
    .filter((r) => r.severity < SPECTRAL_SEVERITY.length)
    .map((r) => `${SPECTRAL_SEVERITY[r.severity]} ${r.code} at ${r.path.join('.') || '(root)'}: ${r.message}`);
}

test('openapi.json passes Redocly’s recommended rules and spectral:oas, asyncapi.json spectral:asyncapi: no error, no warning', async () => {
  const [byRedocly, byOas, byAsyncApi] = await Promise.all([redocly(OPENAPI_FILE), spectral(OPENAPI_FILE), spectral(ASYNCAPI_FILE)]);
  expect({ 'redocly recommended': byRedocly, 'spectral:oas': byOas, 'spectral:asyncapi': byAsyncApi }).toEqual({
    'redocly recommended': [],
    'spectral:oas': [],
    'spectral:asyncapi': [],
  });
});
