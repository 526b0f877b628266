import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';

/** Small modules: no file of the deployed code, the app and its tools is over 250 lines. */
const MAX_LINES = 250;

/** What a build writes (the client package's generated module and its output) is not written by hand. */
const BUILT = new Set(['lib/client/dist', 'lib/client/src/generated.ts']);

function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (BUILT.has(path)) return [];
    if (statSync(join(repoRoot, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

test(`every file of functions/, lib/ and bin/ is at most ${MAX_LINES} lines`, () => {
  const long = ['functions', 'lib', 'bin']
    .flatMap(sources)
    .map((file) => ({ file, lines: readFileSync(join(repoRoot, file), 'utf8').trimEnd().split('\n').length }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(long).toEqual([]);
});
