/**
 * npm run test:changed: the tests a change can fail, chosen by what each test file executed and read when
 * the map was recorded (lib/testmap/), then run. The first call records the map with a full run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cliArguments, cliError } from '#lib/cli';
import { repoRoot } from '#lib/paths';
import { changedBetween, commitOf, forkPoint, keepSnapshot, sameAs, snapshotCommit, testFiles } from '#lib/testmap/changes';
import { readMap, type TestMap } from '#lib/testmap/map';
import { record } from '#lib/testmap/record';
import { selectTests } from '#lib/testmap/select';
import { isScript } from '#lib/testmap/comments';

const usage = `usage: npm run test:changed [-- --base <ref>] [--record] [--list]
  Runs the test files that can fail because of the files changed against main (or --base), the working
  tree's uncommitted and new files included: each test file that executed or read a changed file when the
  map was recorded (every process it reached: its worker, the local API and its stream processor, the
  tools), each changed test file, each test file the map does not know; the whole suite when the run's
  setup changed (package.json, the lockfile, vitest.config.ts, tsconfig.json, test/support/).
  The first call, and --record, records the map first: the whole suite, each file in a process of its own
  (docs/testing.md says what it costs). A call that runs files it chose runs them recording what they use:
  when all pass, the map moves to the state they ran on (the whole suite and --list leave it as it is).
  --base     the ref to compare with (default main)
  --record   record the whole map again first
  --list     print the choice and stop`;
const { values } = await cliArguments({ usage, options: { base: 'string', record: 'boolean', list: 'boolean' } });
const base = values.base ?? 'main';
if (!commitOf(base)) cliError(`--base ${base} names no commit here: give a branch, tag or commit (git log shows them).`);

const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
// The state this call runs on, taken before anything is chosen: the choice and the run are of it.
const now = snapshotCommit();
let map: TestMap | undefined = readMap();
// A map whose commit is gone (its ref removed, the repository collected) cannot be compared with.
const stale = map && !commitOf(map.commit);
if (values.record || !map || stale) {
  const why = values.record ? 'asked (--record)' : !map ? 'no map yet (.test-map/)' : `its commit ${map!.commit.slice(0, 7)} is gone`;
  console.log(`Recording the map: ${why}. The whole suite runs, each file in a process of its own.`);
  const recorded = record([], { at: now });
  map = recorded.map;
  keepSnapshot(map.commit);
  console.log(`Recorded ${Object.keys(map.files).length} test files at ${describeState(map.commit)} in ${seconds()} s.`);
  if (recorded.code !== 0)
    cliError('The recording run had failures (above): the map holds what each file did; fix them, then run npm run test:changed.');
  process.exit(0);
}

// Against the base, and against the map's commit (what changed since it was recorded counts as well).
const fork = forkPoint(base);
const changed = [...new Set([...changedBetween(fork, now), ...changedBetween(map.commit, now)])].sort();
const all = testFiles();
// A script changed in its comments and layout alone since the map's commit (and since the base) runs nothing new.
const commentsOnly = (path: string) => isScript(path) && [map!.commit, fork].every((since) => sameAs(since, path, now));
const selection = selectTests(changed, map, all, commentsOnly);
console.log(`${changed.length} file(s) changed against ${base} and the map (${map.commit.slice(0, 7)}, ${map.recordedAt.slice(0, 16)}).`);
if (selection.whole) console.log(`The whole suite: ${selection.whole}.`);
else for (const test of selection.tests) console.log(`  ${test}  (${selection.because[test]})`);
console.log(`${selection.tests.length} of ${all.length} test files chosen.`);
if (values.list || selection.tests.length === 0) process.exit(0);

// The whole suite runs as npm test does, the map left as it is (still sound: what changed since it is chosen).
if (selection.whole) {
  const run = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  console.log(`test:changed: the whole suite, ${all.length} test files, in ${seconds()} s; the map stays where it was.`);
  process.exit(run.status ?? 1);
}
// The files chosen run recording what they use: the run answers and keeps the map current. Every file that
// could use what changed since the map's commit is among them; the others did not touch it, so their entries
// hold at this state too, and the map moves to it (record.ts: when every file passed and nothing changed meanwhile).
const { code, map: after } = record(selection.tests, { at: now });
keepSnapshot(after.commit);
const where = after.commit === now ? `now stands at ${describeState(now)}` : `stays at ${describeState(after.commit)}`;
console.log(`test:changed: ${selection.tests.length} of ${all.length} test files in ${seconds()} s; the map ${where}.`);
process.exit(code);

function describeState(commit: string): string {
  return commit === commitOf('HEAD') ? `HEAD (${commit.slice(0, 7)})` : `a snapshot of the working tree (${commit.slice(0, 7)})`;
}
