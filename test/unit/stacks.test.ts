import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildBundle } from '#cdk/bundling';
import { repoRoot } from '#lib/paths';
import { sourceMapped, sourceMappedStack } from '#observability/stacks';

const run = promisify(execFile);

/**
 * The functions run without `--enable-source-maps` (a cold-start cost); their error lines map stacks
 * themselves. Proved on a real bundle built with the stack's esbuild settings, loaded by plain Node.
 */
const SOURCE = (stacks: string) =>
  [
    `import { sourceMapped } from ${JSON.stringify(stacks)};`,
    'function inner(): Error {',
    "  return new Error('inner');",
    '}',
    'export function fail(mapped: boolean): string[] {',
    "  const error = new Error('outer', { cause: inner() });",
    '  if (mapped) sourceMapped(error);',
    '  return [error.stack!, (error.cause as Error).stack!];',
    '}',
  ].join('\n');

const dir = mkdtempSync(join(tmpdir(), 'pls-stacks-'));
const bundle = join(dir, 'index.mjs');

beforeAll(async () => {
  const entry = join(dir, 'failing.ts');
  writeFileSync(entry, SOURCE(join(repoRoot, 'functions/commons/observability/stacks.ts')));
  await buildBundle(relative(repoRoot, entry), bundle);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The two stacks `fail(mapped)` answers in a fresh Node process (with the given NODE_OPTIONS). */
async function stacksOf(mapped: boolean, nodeOptions = ''): Promise<string[]> {
  const script = `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((m) => process.stdout.write(JSON.stringify(m.fail(${mapped}))))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions },
  });
  return JSON.parse(stdout) as string[];
}

const firstFrame = (stack: string) => stack.split('\n').find((l) => l.trimStart().startsWith('at '))!;

describe('error stacks of a bundle', () => {
  test('unmapped, they point into the minified bundle (what the mapping is for)', async () => {
    const [outer, inner] = await stacksOf(false);
    expect(firstFrame(outer!)).toMatch(/index\.mjs:\d+:\d+\)?$/);
    expect(firstFrame(inner!)).toMatch(/index\.mjs:\d+:\d+\)?$/);
  });

  test('mapped when logged: each frame of the bundle, the cause too, is its source file, line and column', async () => {
    const [outer, inner] = await stacksOf(true);
    expect(firstFrame(outer!)).toMatch(/failing\.ts:6:17\)?$/);
    expect(firstFrame(inner!)).toMatch(/failing\.ts:3:10\)?$/);
    expect(`${outer}\n${inner}`).not.toContain('index.mjs');
    // The message lines are untouched.
    expect(outer!.split('\n')[0]).toBe('Error: outer');
  });

  test('left to Node when Node maps stacks itself (the same frames, not mapped twice)', async () => {
    const [outer, inner] = await stacksOf(true, '--enable-source-maps');
    expect(firstFrame(outer!)).toMatch(/failing\.ts:6:17\)?$/);
    expect(firstFrame(inner!)).toMatch(/failing\.ts:3:10\)?$/);
  });
});

test('an error is left alone while Node maps stacks itself, and mapped when it does not', async () => {
  const [stack] = await stacksOf(false);
  const error = () => Object.assign(new Error('outer'), { stack: stack! });
  const enabled = process.sourceMapsEnabled;
  try {
    process.setSourceMapsEnabled(true);
    expect(sourceMapped(error()).stack).toBe(stack);
    process.setSourceMapsEnabled(false);
    expect(firstFrame(sourceMapped(error()).stack!)).toMatch(/failing\.ts:6:17\)?$/);
  } finally {
    process.setSourceMapsEnabled(enabled);
  }
});

describe('frames it cannot map are kept as they are', () => {
  test.each([
    ['a Node internal frame', '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)'],
    ['a file with no map beside it', `    at handler (${join(dir, 'nothing-here.mjs')}:1:2)`],
    ['a file URL with no map', `    at ${pathToFileURL(join(dir, 'nothing-here.mjs')).href}:1:2`],
    ['a frame without a location', '    at async Promise.all (index 0)'],
    ['a message line', 'Error: something: 12:34'],
    ['a position past the end of the bundle', `    at f (${bundle}:99999:1)`],
  ])('%s', (_, line) => {
    expect(sourceMappedStack(line)).toBe(line);
  });
});
