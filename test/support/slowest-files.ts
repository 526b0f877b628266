import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints, at the end of a run, the ten slowest test files with their times (import, setup and tests),
 * so that a slow test shows up the day it is written.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length < 2) return;
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: relative(process.cwd(), m.moduleId), ms: d.prepareDuration + d.setupDuration + d.collectDuration + d.duration };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    const width = Math.max(...rows.map((r) => r.file.length));
    console.log(`\n The ${rows.length} slowest test files:`);
    for (const r of rows) console.log(`   ${r.file.padEnd(width)}  ${(r.ms / 1000).toFixed(1).padStart(5)} s`);
  }
}
