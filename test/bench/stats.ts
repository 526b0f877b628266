/** Small statistics and formatting helpers shared by the benchmark sections. */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * An approximate 95% interval for the median of `values`, free of any assumption about their
 * distribution: the order statistics n/2 -/+ 1.96 sqrt(n)/2 (the binomial bound). Where another run
 * of the same code could put the median.
 */
export function medianInterval(values: number[]): [number, number] {
  if (values.length === 0) return [NaN, NaN];
  const s = [...values].sort((a, b) => a - b);
  const half = (1.96 * Math.sqrt(s.length)) / 2;
  const lo = Math.max(0, Math.floor(s.length / 2 - half));
  const hi = Math.min(s.length - 1, Math.ceil(s.length / 2 + half) - 1);
  return [s[lo]!, s[hi]!];
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const ratio = (n: number) => `${fmt(n, 2)}x`;

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Elapsed milliseconds of an async call. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

export function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}
