import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { isContinuation, jsonLineProblem, parseReadableLine, readableLogLine, type ReadableLine } from '#local/logLines';

/**
 * Log lines are parseable: one spelling (docs/operations.md#log-lines) that the console form writes
 * and the strict reader reads back whatever the values hold, and every line the code writes is in the
 * documentation's table, with nothing documented that no code writes.
 */
const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

const key = fc
  .stringMatching(/^[a-z][a-z0-9]{0,8}(?:_[a-z0-9]{1,6}){0,2}$/)
  .filter((k) => !['level', 'message', 'timestamp', 'service', 'error', 'sampling_rate', 'xray_trace_id'].includes(k));
const value = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '"', '\\', '[x', '{', 'a=b', 'x y', 'line\nbreak', '\u202e\u2028', '\ud800', '=', 'null'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 }),
);

/** What the reader gives back for a value: bare words as text, JSON as JSON reads it. */
const readBack = (v: unknown) => {
  if (typeof v === 'string') return v;
  return v !== null && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : JSON.stringify(v);
};

describe('the console form', () => {
  test('reads back every field as written, whatever the values hold (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(key, value, { maxKeys: 6 }),
        fc.constantFrom('INFO', 'WARN', 'ERROR', 'DEBUG', 'CRITICAL'),
        (fields, level) => {
          const line = readableLogLine({ level, message: 'batch failed', timestamp: '2026-11-23T10:00:01.234Z', service: 's', ...fields });
          const parsed = parseReadableLine(line) as ReadableLine;
          expect(parsed, line).toMatchObject({ time: '10:00:01.234', level, message: 'batch failed' });
          expect(parsed.fields).toEqual(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, readBack(v)])));
        },
      ),
      { numRuns: 500, seed: 20261123 },
    );
  });

  test('an error and its causes follow the line, every line of them indented, a message of several lines too', () => {
    const error = { name: 'ZodError', message: 'first\nsecond', stack: 'ZodError: first\n    at a (x.ts:1:1)', cause: 'socket\nhang up' };
    const [first, ...rest] = readableLogLine({
      level: 'ERROR',
      message: 'request failed',
      timestamp: '2026-11-23T10:00:01.234Z',
      status: 500,
      error,
    }).split('\n');
    expect(parseReadableLine(first!)).toMatchObject({ message: 'request failed', fields: { status: '500' } });
    expect(rest.length).toBeGreaterThan(3);
    expect(rest.every(isContinuation)).toBe(true);
  });

  test("today's spellings are refused: a key with spaces, the gateway's short line", () => {
    expect(
      parseReadableLine('11:06:19.102 INFO  batch  route=inbound-consumer size=2 applied=1 unknown project=1 before the project=0'),
    ).toBe('the key "unknown project" is not snake_case');
    expect(parseReadableLine('GET /projects 401 0.4ms (gateway)')).toEqual(expect.any(String));
    expect(parseReadableLine('11:06:19.102 INFO  batch  reason=two words')).toEqual(expect.any(String));
    expect(parseReadableLine('11:06:19.102 INFO  batch  route=x ')).toBe('the line ends with a space');
  });
});

describe('the JSON form', () => {
  const line = (extra: Record<string, unknown>) =>
    JSON.stringify({ level: 'INFO', message: 'batch', timestamp: '2026-11-23T10:00:01.234Z', service: 's', ...extra });

  test('snake_case keys and the four every line has; metric names as CloudWatch names them', () => {
    expect(jsonLineProblem(line({ route: 'inbound-consumer', unknown_project: 1 }))).toBeUndefined();
    expect(jsonLineProblem(line({ 'unknown project': 1, 'before the project': 0 }))).toBe(
      'its keys "unknown project", "before the project" are not snake_case',
    );
    expect(jsonLineProblem(line({ level: 'VERBOSE' }))).toMatch(/^its level "VERBOSE"/);
    expect(jsonLineProblem(JSON.stringify({ level: 'INFO', message: 'x' }))).toBe('it has no timestamp');
    const metrics = { _aws: { CloudWatchMetrics: [{ Metrics: [{ Name: 'EventsDropped' }] }] }, service: 's', route: 'r', EventsDropped: 1 };
    expect(jsonLineProblem(JSON.stringify(metrics))).toBeUndefined();
    expect(jsonLineProblem(JSON.stringify({ ...metrics, Dropped: 1 }))).toBe('its keys "Dropped" are not snake_case');
  });
});

describe('every line the code writes is documented', () => {
  const sources = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir)).flatMap((name) => {
      const path = `${dir}/${name}`;
      return statSync(join(repoRoot, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  const WRITES = [
    /\blogger\.(?:trace|debug|info|warn|error|critical)\(\s*'([^']+)'/g, // the functions' logger
    /\blog\(\s*'(?:info|warn|error)',\s*'([^']+)'/g, // the local stack's own parts (lib/local/localLog.ts)
    /\bfailure = \{ message: '([^']+)'/g, // the local gateway's failures
  ];
  const written = new Set(
    [...sources('functions'), ...sources('lib/local')].flatMap((file) =>
      WRITES.flatMap((re) => [...read(file).matchAll(re)].map((m) => m[1]!)),
    ),
  );
  const page = read('docs/operations.md');
  const table = page.slice(page.indexOf('### Log lines'), page.indexOf('## Dashboard and alarms'));
  const documented = new Set(
    table
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split(' | ')[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)),
  );

  test('every message is in the table of docs/operations.md', () => {
    expect(written.size).toBeGreaterThan(15);
    expect([...written].filter((m) => !documented.has(m))).toEqual([]);
  });

  test('every message of the table is written somewhere', () => {
    expect([...documented].filter((m) => !written.has(m))).toEqual([]);
  });
});
