import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { commitOf } from './changes.ts';
import { MAP_DIR, readMap, summarize, type TestMap, writeMap } from './map.ts';

/**
 * Runs test files (all, when `tests` is empty) recording what each executes and reads: each file in a
 * process of its own with a local API of its own, its tools run from their sources (vitest.config.ts,
 * test/support/env.ts and tools.ts), every process's V8 coverage (NODE_V8_COVERAGE) and reads
 * (test/support/read-trace.mjs) kept per file (test/support/coverage-record.ts). A full recording
 * replaces the map; a partial one adds to each file's entry (what a file used at either commit). A file
 * that failed is recorded as it ran. Returns vitest's exit code.
 */
export function record(
  tests: string[],
  { dir = MAP_DIR, vitestArgs = [] as string[], quiet = false } = {},
): { code: number; map: TestMap } {
  const recording = join(dir, 'recording');
  const commit = commitOf('HEAD')!; // what the run starts on (a commit made while it runs is not what it saw)
  rmSync(recording, { recursive: true, force: true });
  mkdirSync(join(recording, 'workers'), { recursive: true });
  const preload = join(repoRoot, 'test', 'support', 'read-trace.mjs');
  const run = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...vitestArgs, ...tests], {
    cwd: repoRoot,
    stdio: quiet ? 'ignore' : 'inherit',
    env: {
      ...process.env,
      TEST_MAP_RECORD: recording,
      TEST_MAP_ROOT: repoRoot,
      NODE_V8_COVERAGE: join(recording, 'workers'),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim(),
    },
  });
  const recorded = summarize(recording);
  const before = readMap(dir);
  const files = tests.length === 0 || !before ? recorded : { ...before.files };
  const union = (a: string[] = [], b: string[]) => [...new Set([...a, ...b])].sort();
  if (files !== recorded)
    for (const [test, used] of Object.entries(recorded))
      files[test] = { ran: union(files[test]?.ran, used.ran), read: union(files[test]?.read, used.read) };
  const map: TestMap = {
    commit: tests.length === 0 || !before ? commit : before.commit,
    recordedAt: new Date().toISOString(),
    files,
  };
  writeMap(map, dir);
  rmSync(recording, { recursive: true, force: true });
  return { code: run.status ?? 1, map };
}
