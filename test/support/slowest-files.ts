import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { CpuSplit, WHO } from './cpu-split.ts';

/**
 * Prints, at the end of a run, the ten slowest test files with their times (import, setup and tests),
 * so that a slow test shows up the day it is written; and the run's CPU time split by who spent it
 * (cpu-split.ts), so that a slower run names its cause: the run is bound by the machine's cores.
 */
export default class SlowestFiles implements Reporter {
  private cpu: CpuSplit | undefined;

  onInit(): void {
    this.cpu = new CpuSplit();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const cpu = this.cpu?.stop();
    if (modules.length < 2) return;
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        return {
          file: relative(process.cwd(), m.moduleId),
          ms: d.prepareDuration + d.setupDuration + d.collectDuration + d.duration,
          cpu: m.meta().cpuSeconds,
        };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    const width = Math.max(...rows.map((r) => r.file.length));
    console.log(`\n The ${rows.length} slowest test files:`);
    for (const r of rows) {
      const cpu = r.cpu === undefined ? '' : `  (its worker's CPU ${r.cpu.toFixed(1).padStart(5)} s)`;
      console.log(`   ${r.file.padEnd(width)}  ${(r.ms / 1000).toFixed(1).padStart(5)} s${cpu}`);
    }
    if (!cpu) return;
    console.log(
      `\n CPU time of the run: ${cpu.total.toFixed(0)} s in ${cpu.wall.toFixed(0)} s (${(cpu.total / cpu.wall).toFixed(2)} cores busy on average):`,
    );
    for (const who of WHO) {
      const s = cpu.seconds[who];
      console.log(`   ${who.padEnd(20)} ${s.toFixed(1).padStart(6)} s  ${((100 * s) / cpu.total).toFixed(0).padStart(3)} %`);
    }
    const tools = cpu.tools.slice(0, 8);
    if (tools.length) console.log('\n The tools that cost the most (CPU seen while they ran):');
    for (const [tool, s] of tools) console.log(`   ${tool.padEnd(60)} ${s.toFixed(1).padStart(6)} s`);
  }
}
