import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '#lib/paths';

/** A fault planted in a line of a product module: the line as it was, and as the fault leaves it. */
export interface Fault {
  file: string;
  line: number;
  before: string;
  after: string;
}

/** What a fault does to a line: a comparison or a condition turned, as a slip of the hand would. */
const MUTATIONS: [RegExp, string][] = [
  [/ === /, ' !== '],
  [/ !== /, ' === '],
  [/ <= /, ' < '],
  [/ >= /, ' > '],
  [/ < (?!\/)/, ' <= '],
  [/ > (?!\/)/, ' >= '],
  [/ && /, ' || '],
  [/ \|\| /, ' && '],
  [/\breturn true\b/, 'return false'],
  [/\breturn false\b/, 'return true'],
];

/** The product modules faults are planted in: functions/, lib/ and bin/ (TypeScript, not the client package's build). */
function productModules(dir = repoRoot): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const path = join(d, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : walk(path);
      return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && e.name !== 'generated.ts' ? [relative(dir, path)] : [];
    });
  return ['functions', 'lib', 'bin'].flatMap((top) => walk(join(dir, top))).sort();
}

/** Every fault one of MUTATIONS can plant in `file`: one per line of code (not a comment, not a type). */
export function faultsIn(file: string, source = readFileSync(join(repoRoot, file), 'utf8')): Fault[] {
  const lines = source.split('\n');
  return lines.flatMap((text, i) => {
    const code = text.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*') || /^(export )?(type|interface) /.test(code)) return [];
    for (const [pattern, replacement] of MUTATIONS)
      if (pattern.test(text)) return [{ file, line: i + 1, before: text, after: text.replace(pattern, replacement) }];
    return [];
  });
}

/** A generator of numbers in [0, 1) from a seed (mulberry32): the same seed, the same sample. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` faults in as many different modules, drawn with `random` among every module that has one. */
export function sampleFaults(count: number, random: () => number, modules = productModules()): Fault[] {
  const pool = modules.map((file) => faultsIn(file)).filter((faults) => faults.length > 0);
  const chosen: Fault[] = [];
  while (chosen.length < count && pool.length > 0) {
    const [faults] = pool.splice(Math.floor(random() * pool.length), 1);
    chosen.push(faults![Math.floor(random() * faults!.length)]!);
  }
  return chosen;
}

/** `source` with `fault` planted. */
export function planted(source: string, fault: Fault): string {
  const lines = source.split('\n');
  lines[fault.line - 1] = fault.after;
  return lines.join('\n');
}
