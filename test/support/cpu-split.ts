import { readdirSync, readFileSync } from 'node:fs';

/**
 * The CPU time (user + system) of a test run, split by who spent it: DynamoDB Local, the local APIs
 * (`bin/start.ts`, or its build), the test workers, the tools the tests run (the CLIs under tsx, esbuild, cfn-lint,
 * linters) and vitest itself. Read from /proc (Linux; elsewhere there is no split): every process
 * under this one is sampled twice a second and named by its command line (an ending one keeps its name: its command
 * line reads empty); what a process spent after
 * its last sample is still counted, through the CPU time its parent collects when it ends (cutime),
 * and goes to the kind of process its parent had ended.
 */
export const WHO = ['DynamoDB Local', 'local APIs', 'test workers', 'tools the tests run', 'vitest'] as const;
export type Who = (typeof WHO)[number];

/** Options of a runtime whose value is the next argument (a preloaded module, not the script it runs). */
const TAKES_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);

/**
 * A tool by what it runs: the program and the first argument that is not an option (the script a runtime was given, a
 * shell's command), with a path shortened to the repository's own (or a package's), else to its file name. Command
 * lines hold their arguments NUL-separated.
 */
export function toolName(commandLine: string, root = process.cwd()): string {
  const [program = '', ...args] = commandLine.split('\0').filter(Boolean);
  let script: string | undefined;
  for (let i = 0; i < args.length && script === undefined; i++) {
    if (TAKES_VALUE.has(args[i]!)) i++;
    else if (args[i] === '-c') script = args[i + 1];
    else if (!args[i]!.startsWith('-')) script = args[i];
  }
  const short = (path: string) => {
    const local = path.replace(/^file:\/\//, '');
    if (local.startsWith(`${root}/`)) return local.slice(root.length + 1);
    return /\/(node_modules\/.*)$/.exec(local)?.[1] ?? (local.startsWith('/') ? local.split('/').at(-1)! : local);
  };
  return [program.split('/').at(-1), script && short(script)].filter(Boolean).join(' ').slice(0, 60);
}

function kindOf(commandLine: string): Who {
  if (commandLine.includes('DynamoDBLocal')) return 'DynamoDB Local';
  if (commandLine.includes('bin/start.ts') || /\/test-tools\/[^/]+\/start\.mjs/.test(commandLine)) return 'local APIs';
  if (commandLine.includes('vitest/dist/workers/')) return 'test workers';
  if (commandLine.includes('vitest')) return 'vitest';
  return 'tools the tests run';
}

/**
 * Who a process is by its command line, named again at every sample (a child holds its parent's command line until it
 * has exec'd); an ending process (a zombie) shows none, and keeps the name it had.
 */
export function nameOf(commandLine: string, before?: { who: Who; tool?: string | undefined }): { who: Who; tool?: string | undefined } {
  if (!commandLine && before) return { who: before.who, tool: before.tool };
  const who = kindOf(commandLine);
  return who === 'tools the tests run' ? { who, tool: toolName(commandLine) } : { who };
}

interface Seen {
  who: Who;
  /** For a tool: what it runs (toolName), to say which tools cost the most. */
  tool?: string;
  parent: number;
  /** Its own CPU seconds, and those of the children it has waited for, at its last sample. */
  self: number;
  reaped: number;
  alive: boolean;
}

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux
const SAMPLE_MS = 500;

function readStat(pid: number): { parent: number; self: number; reaped: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name in parentheses: state, ppid, ..., utime (14), stime, cutime, cstime.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      parent: Number(f[1]),
      self: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND,
      reaped: (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
}

export class CpuSplit {
  private readonly seen = new Map<number, Seen>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();

  constructor(private readonly root = process.pid) {
    if (!readStat(root)) return; // not Linux: nothing to sample
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  private sample(): void {
    const stats = new Map<number, { parent: number; self: number; reaped: number }>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const stat = readStat(pid);
      if (stat) stats.set(pid, stat);
    }
    const tree = new Set([this.root]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, stat] of stats)
        if (!tree.has(pid) && tree.has(stat.parent)) {
          tree.add(pid);
          grew = true;
        }
    }
    for (const entry of this.seen.values()) entry.alive = false;
    for (const pid of tree) {
      const stat = stats.get(pid)!;
      const commandLine = pid === this.root ? '' : commandLineOf(pid);
      const { who, tool } = pid === this.root ? { who: 'vitest' as const } : nameOf(commandLine, this.seen.get(pid));
      this.seen.set(pid, { who, ...(tool ? { tool } : {}), parent: stat.parent, self: stat.self, reaped: stat.reaped, alive: true });
    }
  }

  /**
   * CPU seconds by who spent them since the start, the tools' by what they run (most first; what a tool spent after its
   * last sample is in `seconds` only), and the wall time (stops sampling).
   */
  stop(): { seconds: Record<Who, number>; tools: [string, number][]; total: number; wall: number } | undefined {
    if (!this.timer) return undefined;
    clearInterval(this.timer);
    this.sample();
    const seconds = Object.fromEntries(WHO.map((who) => [who, 0])) as Record<Who, number>;
    const ended = new Map<number, Seen[]>();
    for (const entry of this.seen.values()) {
      seconds[entry.who] += entry.self;
      if (!entry.alive) ended.set(entry.parent, [...(ended.get(entry.parent) ?? []), entry]);
    }
    // What a parent collected from its ended children beyond their last samples (or from children never sampled).
    for (const [pid, entry] of this.seen) {
      const children = ended.get(pid) ?? [];
      const unsampled = entry.reaped - children.reduce((sum, c) => sum + c.self + c.reaped, 0);
      if (unsampled <= 0) continue;
      const heaviest = children.sort((a, b) => b.self - a.self)[0];
      seconds[heaviest?.who ?? 'tools the tests run'] += unsampled;
    }
    const total = Object.values(seconds).reduce((a, b) => a + b, 0);
    const tools = new Map<string, number>();
    for (const entry of this.seen.values()) if (entry.tool) tools.set(entry.tool, (tools.get(entry.tool) ?? 0) + entry.self);
    return { seconds, tools: [...tools].sort((a, b) => b[1] - a[1]), total, wall: (Date.now() - this.started) / 1000 };
  }
}
