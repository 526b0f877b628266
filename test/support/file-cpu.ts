import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

/**
 * The CPU seconds a test file cost its worker: the worker's own (imports, setup, tests) and the
 * processes the file ran and waited for (CLIs, stacks of its own), read from /proc at its end. A
 * worker runs one file unless the project shares workers (`isolate: false`): then each file counts
 * from the end of the one before. The reporter (slowest-files.ts) prints it beside the wall time.
 */
declare module 'vitest' {
  interface TaskMeta {
    cpuSeconds?: number;
  }
}

const state = globalThis as { lastFileCpu?: number };

function cpuSoFar(): number | undefined {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined; // not Linux
  }
}

// The file is the hook's second argument; vitest reads the first as fixtures, and wants a pattern there.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const now = cpuSoFar();
  if (now === undefined) return;
  file.meta.cpuSeconds = now - (state.lastFileCpu ?? 0);
  state.lastFileCpu = now;
});
