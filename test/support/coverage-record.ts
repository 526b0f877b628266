import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { takeCoverage } from 'node:v8';
import { afterAll, expect } from 'vitest';
import { repoRoot } from '#lib/paths';

/**
 * Recording what each test file executes (`npm run test:changed` records it, lib/testmap/record.ts): set up
 * only when TEST_MAP_RECORD names the recording's folder. Each file runs in a process of its own then
 * (vitest.config.ts), whose V8 coverage (NODE_V8_COVERAGE, set for the worker when it started) is taken at
 * the file's end and moved into the file's own folder; every process the file starts (its local API, the
 * tools, the stream processor in it) inherits NODE_V8_COVERAGE naming that folder and writes its own there
 * as it exits. What each process reads of the repository is listed beside it (read-trace.mjs).
 */
const root = process.env.TEST_MAP_RECORD;
if (root) {
  const file = relative(repoRoot, expect.getState().testPath ?? 'unknown');
  const own = join(root, 'files', file.replaceAll('/', '__'));
  mkdirSync(own, { recursive: true });
  writeFileSync(join(own, 'test-file.txt'), file);
  const workerDir = process.env.NODE_V8_COVERAGE;
  process.env.NODE_V8_COVERAGE = own;
  afterAll(() => {
    // What the worker read for this file (test/support/read-trace.mjs, preloaded in every process).
    (globalThis as { __testMapFlushReads?: (dir: string) => void }).__testMapFlushReads?.(own);
    if (!workerDir) return;
    takeCoverage();
    const mine = `coverage-${process.pid}-`;
    for (const name of readdirSync(workerDir)) if (name.startsWith(mine)) renameSync(join(workerDir, name), join(own, name));
  });
}
