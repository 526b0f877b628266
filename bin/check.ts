/**
 * npm run check: the static checks (types, lint, format, dependency rules, unused code) side by side,
 * each one's output shown only when it fails.
 *
 * `npm test` is this with `--tests`: everything after it goes to `vitest run`, which starts at once
 * beside the checks. The checks run at a lower priority, in the time the test run leaves a core idle
 * (it waits on DynamoDB Local and its local APIs now and then), instead of before it; their lines come
 * after the tests', and either failing fails the command.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { cliArguments } from '#lib/cli';
import { repoRoot } from '#lib/paths';

const CHECKS = ['typecheck', 'lint', 'check:format', 'check:deps', 'check:unused'];
const at = process.argv.indexOf('--tests', 2);
const testArgs = at === -1 ? undefined : process.argv.slice(at + 1);
await cliArguments({
  argv: at === -1 ? process.argv.slice(2) : process.argv.slice(2, at),
  usage: `usage: npm run check   (the static checks side by side: ${CHECKS.join(', ')})
       npm test [-- <vitest options and files>]   (the same checks beside vitest run)`,
});

/** How much lower than the tests the checks run (Unix niceness; ignored where it cannot be set). */
const BESIDE_TESTS = 10;

function lowered(child: ChildProcess): void {
  // Set before npm starts the check's own process, which inherits it.
  try {
    if (child.pid !== undefined) setPriority(child.pid, BESIDE_TESTS);
  } catch {
    // Not allowed here: the checks run at the tests' priority.
  }
}

function run(script: string): Promise<{ script: string; ok: boolean; seconds: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    if (testArgs) lowered(child);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('close', (code) => resolve({ script, ok: code === 0, seconds: (performance.now() - started) / 1000, output }));
  });
}

/** `vitest run` with the given arguments, its output as it comes; its exit code. */
function vitest(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(join(repoRoot, 'node_modules', '.bin', 'vitest'), ['run', ...args], { stdio: 'inherit' });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const [results, testsCode] = await Promise.all([Promise.all(CHECKS.map(run)), testArgs ? vitest(testArgs) : Promise.resolve(0)]);
if (testArgs) console.log('\nStatic checks (run beside the tests):');
for (const { script, ok, seconds, output } of results) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${script.padEnd(13)} ${seconds.toFixed(1)} s`);
  if (!ok) console.log(output.trimEnd().replace(/^/gm, '     '));
}
if (results.some((r) => !r.ok)) {
  console.error(`\n${results.filter((r) => !r.ok).length} check(s) failed: run the one named above (npm run <name>) to see it alone.`);
  process.exit(1);
}
process.exit(testsCode);
