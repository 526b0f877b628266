import { expect, test } from 'vitest';
import { packageScripts, runTool } from '#support/tools';

/**
 * `npm test` is `npm run check --tests`: the static checks beside `vitest run`, which takes every argument
 * after `--tests` (bin/check.ts). What comes before `--tests` is the check tool's own, and judged as
 * every tool judges its arguments: a mistake there stops everything before a check or a test starts.
 */
test('npm test runs the checks with --tests, and a mistake before --tests is refused before anything starts', async () => {
  expect(packageScripts().test).toBe('node --import tsx bin/check.ts --tests');
  const res = await runTool('bin/check.ts', ['--no-such-option', '--tests', 'test/unit/slug.test.ts']);
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr).toMatch(/^Unknown option --no-such-option: this command takes no options\.\nusage: npm run check/);
  // Nothing printed: neither a check's line nor vitest's.
  expect(res.stdout).toBe('');
});
