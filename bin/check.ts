/**
 * npm run check: the static checks (types, lint, format, dependency rules, unused code) side by side,
 * each one's output shown only when it fails. `npm test` runs it before the tests.
 */
import { spawn } from 'node:child_process';
import { cliArguments } from '#lib/cli';

const CHECKS = ['typecheck', 'lint', 'check:format', 'check:deps', 'check:unused'];
await cliArguments({ usage: `usage: npm run check   (the static checks side by side: ${CHECKS.join(', ')})` });

function run(script: string): Promise<{ script: string; ok: boolean; seconds: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('close', (code) => resolve({ script, ok: code === 0, seconds: (performance.now() - started) / 1000, output }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { script, ok, seconds, output } of results) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${script.padEnd(13)} ${seconds.toFixed(1)} s`);
  if (!ok) console.log(output.trimEnd().replace(/^/gm, '     '));
}
if (results.some((r) => !r.ok)) {
  console.error(`\n${results.filter((r) => !r.ok).length} check(s) failed: run the one named above (npm run <name>) to see it alone.`);
  process.exit(1);
}
