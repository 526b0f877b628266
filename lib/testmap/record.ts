import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { commitOf, treeOf, workingTree } from './changes.ts';
import { MAP_DIR, readMap, summarize, type TestMap, type Used, writeMap } from './map.ts';

/**
 * Runs test files (all, when `tests` is empty) recording what each executes and reads: each file in a
 * process of its own with a local API of its own, its tools run from their sources (vitest.config.ts,
 * test/support/env.ts and tools.ts), every process's V8 coverage (NODE_V8_COVERAGE) and reads
 * (test/support/read-trace.mjs) kept per file (test/support/coverage-record.ts). A full recording
 * replaces the map; a partial one adds to each file's entry (what a file used at either commit), and
 * moves the map to `at` (a commit or working-tree snapshot) when given, every file passed and nothing
 * changed while they ran: sound when the files it records are every file the changes since the map's
 * commit can reach (bin/test-changed.ts). A whole recording stands at `at` (HEAD when not given). A file
 * that failed is recorded as it ran. Returns vitest's exit code.
 */
export function record(
  tests: string[],
  { dir = MAP_DIR, vitestArgs = [] as string[], quiet = false, at = undefined as string | undefined } = {},
): { code: number; map: TestMap } {
  const recording = join(dir, 'recording');
  const commit = at ?? commitOf('HEAD')!; // what the run starts on (a commit made while it runs is not what it saw)
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
  // The state it ran on: `at`, if nothing changed while it ran (else what ran was some other state).
  const held = at === undefined || workingTree() === treeOf(at);
  if (!held)
    console.warn(
      tests.length
        ? 'test:changed: files changed while the tests ran; the map stays where it was (the next call chooses by them).'
        : 'test:changed: files changed while the map was recorded: it stands at the state the recording began on, and may miss what those edits made the tests run. Record it again (--record) when nothing is being edited.',
    );
  // A partial recording moves the map only when every file it ran passed (a file that failed may not have
  // run to its end, nor saved what it ran) and on the state it began on.
  const moved = at !== undefined && run.status === 0 && held;
  const map = merged(readMap(dir), summarize(recording), { partial: tests.length > 0, commit, moved });
  writeMap(map, dir);
  rmSync(recording, { recursive: true, force: true });
  return { code: run.status ?? 1, map };
}

/**
 * The map after a recording: a whole one replaces it; a partial one adds to each recorded file's entry
 * (what it used at either state) and, when `moved`, stands at the recording's state (`commit`), else stays
 * at the map's own.
 */
export function merged(
  before: TestMap | undefined,
  recorded: Record<string, Used>,
  { partial, commit, moved }: { partial: boolean; commit: string; moved: boolean },
): TestMap {
  const union = (a: string[] = [], b: string[]) => [...new Set([...a, ...b])].sort();
  const recordedAt = new Date().toISOString();
  if (!partial || !before) return { commit, recordedAt, files: recorded };
  const files = { ...before.files };
  for (const [test, used] of Object.entries(recorded))
    files[test] = { ran: union(files[test]?.ran, used.ran), read: union(files[test]?.read, used.read) };
  return { commit: moved ? commit : before.commit, recordedAt, files };
}
