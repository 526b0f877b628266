/**
 * npm run test:changed:check: plants faults in a sample of product modules and shows that
 * `npm run test:changed` fails wherever the whole suite fails, in a worktree of HEAD of its own.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArguments, cliError, usageError } from '#lib/cli';
import { repoRoot } from '#lib/paths';
import { testFiles } from '#lib/testmap/changes';
import { type Fault, faultsIn, planted, sampleFaults, seeded } from '#lib/testmap/faults';
import { MAP_DIR, readMap } from '#lib/testmap/map';

const usage = `usage: npm run test:changed:check [-- --faults <n>] [--seed <n>] [--module <file>]
  Plants one fault (a comparison or a condition turned) in each of <n> product modules drawn from functions/,
  lib/ and bin/, one at a time, in a worktree of HEAD; runs npm run test:changed there, and when it passes,
  every other test file: the full suite's verdict. Prints, for each fault, what each said, and how often they
  agreed (test:changed failed wherever the full suite failed); a fault both pass is a gap in the suite.
  --faults   how many (default 3)
  --seed     the sample's seed (default: drawn, and printed to run it again)
  --module   plant in this module (a path from the repository's root) instead of drawing`;
const { values } = await cliArguments({ usage, options: { faults: 'string', seed: 'string', module: 'string' } });
const count = Number(values.faults ?? '3');
if (!Number.isInteger(count) || count < 1 || count > 50)
  usageError(`--faults must be a whole number from 1 to 50, not "${values.faults}".`, usage);
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
if (!Number.isInteger(seed) || seed < 0) usageError(`--seed must be a whole number, not "${values.seed}".`, usage);
const map = readMap();
if (!map) cliError('No map yet: run npm run test:changed once (it records one), then this check.');

const faults: Fault[] = values.module ? faultsIn(values.module).slice(0, 1) : sampleFaults(count, seeded(seed));
if (faults.length === 0) cliError(`${values.module} has no line a fault can be planted in.`);
console.log(`Seed ${seed}: ${faults.length} fault(s), each checked in a worktree of HEAD.`);

const tree = mkdtempSync(join(tmpdir(), 'pls-faults-'));
execFileSync('git', ['worktree', 'add', '--detach', '--quiet', tree, 'HEAD'], { cwd: repoRoot });
const cleanup = () => {
  execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: repoRoot, stdio: 'ignore' });
  rmSync(tree, { recursive: true, force: true });
};
process.on('SIGINT', () => (cleanup(), process.exit(130)));
symlinkSync(join(repoRoot, 'node_modules'), join(tree, 'node_modules'));
mkdirSync(join(tree, '.test-map'));
copyFileSync(join(MAP_DIR, 'map.json'), join(tree, '.test-map', 'map.json'));

const all = testFiles();
const vitest = join(tree, 'node_modules', 'vitest', 'vitest.mjs');
const inTree = (args: string[], quiet = true) => {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: tree, encoding: 'utf8', stdio: quiet ? 'pipe' : 'inherit', maxBuffer: 1 << 28 });
  return { ok: run.status === 0, out: `${run.stdout ?? ''}${run.stderr ?? ''}`, seconds: (performance.now() - started) / 1000 };
};
const results: { fault: Fault; chosen: number; changed: boolean; full: boolean; seconds: number }[] = [];
try {
  for (const fault of faults) {
    const path = join(tree, fault.file);
    const source = readFileSync(path, 'utf8');
    writeFileSync(path, planted(source, fault));
    console.log(`\n${fault.file}:${fault.line}\n  - ${fault.before.trim()}\n  + ${fault.after.trim()}`);
    const list = inTree(['--import', 'tsx', 'bin/test-changed.ts', '--base', 'HEAD', '--list']);
    const chosen = [...list.out.matchAll(/^ {2}(test\/\S+\.test\.ts) /gm)].map((m) => m[1]!);
    const whole = /^The whole suite/m.test(list.out);
    const changed = inTree(['--import', 'tsx', 'bin/test-changed.ts', '--base', 'HEAD']);
    // The full suite's verdict: test:changed's failure is the suite's; else every file it left out, run too.
    const rest = whole ? [] : all.filter((t) => !chosen.includes(t));
    const others = changed.ok && rest.length > 0 ? inTree([vitest, 'run', ...rest]) : undefined;
    const full = changed.ok && (others?.ok ?? true);
    const seconds = changed.seconds + (others?.seconds ?? 0);
    results.push({ fault, chosen: whole ? all.length : chosen.length, changed: changed.ok, full, seconds });
    console.log(
      `  test:changed: ${chosen.length} file(s), ${changed.ok ? 'passed' : 'failed'} in ${changed.seconds.toFixed(0)} s` +
        (others ? `; the ${rest.length} others: ${others.ok ? 'passed' : 'FAILED'} in ${others.seconds.toFixed(0)} s` : ''),
    );
    writeFileSync(path, source);
  }
} finally {
  cleanup();
}
const agreed = results.filter((r) => r.full === r.changed);
const gaps = results.filter((r) => r.changed && r.full);
console.log(`\nAgreed on ${agreed.length} of ${results.length} faults (test:changed failed wherever the full suite failed).`);
for (const r of results.filter((x) => x.full !== x.changed))
  console.log(`  DISAGREED: ${r.fault.file}:${r.fault.line}: the full suite failed, test:changed passed`);
for (const r of gaps) console.log(`  gap: no test fails on ${r.fault.file}:${r.fault.line} (${r.fault.after.trim()})`);
process.exit(agreed.length === results.length ? 0 : 1);
