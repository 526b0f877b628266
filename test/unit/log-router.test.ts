import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { routeProcessOutput } from '#local/logRouter';

/** `npm start`'s routing of its functions' output (lib/local/logRouter.ts), in this process, to files of the test's own. */
test('a log line and a metrics line go to their files; each write says the stream takes more and calls its callback', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pls-log-router-'));
  const files = { logFile: join(dir, 'logs.jsonl'), metricsFile: join(dir, 'metrics.jsonl') };
  const router = routeProcessOutput({ ...files, echo: false });
  const called: string[] = [];
  let taken: boolean[];
  try {
    // A writer that honours backpressure waits for 'drain' after a false, which would never come.
    taken = [
      process.stdout.write('{"level":"INFO","message":"request"}\n', () => called.push('log')),
      process.stdout.write('{"_aws":{"CloudWatchMetrics":[]},"Requests":1}\n', () => called.push('metrics')),
    ];
    await new Promise((resolve) => process.nextTick(resolve));
  } finally {
    await router.stop();
  }
  try {
    expect(taken).toEqual([true, true]);
    expect(called).toEqual(['log', 'metrics']);
    expect(readFileSync(files.logFile, 'utf8')).toBe('{"level":"INFO","message":"request"}\n');
    expect(readFileSync(files.metricsFile, 'utf8')).toBe('{"_aws":{"CloudWatchMetrics":[]},"Requests":1}\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
