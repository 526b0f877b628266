import { describe, expect, it } from 'vitest';
import { nameOf, toolName } from '../support/cpu-split.ts';

/** The run's CPU split names the tools that cost the most by what they run, not by the runtime that ran them. */
describe('toolName', () => {
  const root = '/ci/repo';
  it('names the script a runtime was given, past the modules it preloads', () => {
    const tsxChild = [
      '/usr/bin/node',
      '--require',
      `${root}/node_modules/tsx/dist/preflight.cjs`,
      '--import',
      `file://${root}/node_modules/tsx/dist/loader.mjs`,
      `${root}/bin/cli.ts`,
      'rekey',
    ].join('\0');
    expect(toolName(tsxChild, root)).toBe('node bin/cli.ts');
    expect(toolName(['/usr/bin/node', `${root}/node_modules/.bin/tsx`, 'bin/check-table.ts'].join('\0'), root)).toBe(
      'node node_modules/.bin/tsx',
    );
  });

  it("names a shell's command, and a program outside the repository by its file name", () => {
    expect(toolName(['sh', '-c', 'npm run synth'].join('\0'), root)).toBe('sh npm run synth');
    expect(toolName(['/usr/bin/python3', '/usr/local/bin/cfn-lint', '--format', 'json'].join('\0'), root)).toBe('python3 cfn-lint');
    expect(toolName(['/usr/lib/chromium/chromium', '--headless'].join('\0'), root)).toBe('chromium');
  });
});

describe('nameOf', () => {
  const worker = ['/usr/bin/node', '--conditions', 'node', '/ci/repo/node_modules/vitest/dist/workers/forks.js'].join('\0');
  it('names a process by its command line, and again once it has exec’d', () => {
    const forked = nameOf(['node', '/ci/repo/node_modules/vitest/vitest.mjs', 'run'].join('\0'));
    expect(forked.who).toBe('vitest');
    expect(nameOf(worker, forked)).toEqual({ who: 'test workers' });
  });

  it('keeps the name of an ending process, whose command line reads empty (a test worker is not a tool as it ends)', () => {
    expect(nameOf('', { who: 'test workers' })).toEqual({ who: 'test workers', tool: undefined });
    expect(nameOf('', { who: 'tools the tests run', tool: 'esbuild' })).toEqual({ who: 'tools the tests run', tool: 'esbuild' });
  });
});
