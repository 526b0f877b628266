/**
 * The spelling of every log line, in one place (docs/operations.md#log-lines). A line is written once,
 * as JSON (Powertools, on Lambda and under `npm start` alike: the log files and CloudWatch hold it so);
 * `npm start` shows it on the console readably:
 *
 *   11:06:18.586 INFO  request  request_id=543dbe18-… route=list-projects status=200 latency_ms=12.9
 *
 * time, level (padded to five), the message (words with single spaces), two spaces, then key=value
 * fields separated by one space. Keys are snake_case, in the JSON line as on the console. A value is
 * written bare when it is printable ASCII without spaces, `"` or `\` and does not start with `[` or
 * `{`; any other text is a JSON string (double quotes, JSON escapes), a list or an object is its JSON
 * (no spaces outside its strings). An error follows its line, indented by four spaces or more, with its
 * stack and its causes. `parseReadableLine` and `jsonLineProblem` are the strict readers of both forms.
 */

export type Entry = Record<string, unknown>;

/** Keys every line carries that a reader of the console does not need repeated. */
const QUIET_KEYS = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id', 'error']);

const COLORS: Record<string, string> = { DEBUG: '\x1b[90m', INFO: '\x1b[36m', WARN: '\x1b[33m', ERROR: '\x1b[31m', CRITICAL: '\x1b[31m' };

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const BARE = /^(?![[{])[!#-[\]-~]+$/;
// Line and paragraph separators and the bidirectional controls JSON leaves as they are: escaped, so
// that a value can neither break a line nor reorder what a terminal shows.
const INVISIBLE = /[\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeInvisible = (json: string) => json.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A field's value as the console shows it. */
function logValue(value: unknown): string {
  if (typeof value === 'string') return BARE.test(value) ? value : escapeInvisible(JSON.stringify(value));
  return escapeInvisible(JSON.stringify(value) ?? String(value));
}

/** Each line of an error's text, indented. */
const indented = (text: string, indent: string) => text.split('\n').map((l) => `\n${indent}${l}`);

/** One log line as a person reads it: time, level, message, the fields, then an error and its causes. */
export function readableLogLine(entry: Entry, color = false): string {
  const level = String(entry.level ?? 'INFO');
  const time = typeof entry.timestamp === 'string' ? entry.timestamp.slice(11, 23) : '';
  const fields = Object.entries(entry)
    .filter(([k, v]) => !QUIET_KEYS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${logValue(v)}`)
    .join(' ');
  const tag = color ? `${COLORS[level] ?? ''}${level.padEnd(5)}\x1b[0m` : level.padEnd(5);
  const message = String(entry.message ?? '').replace(/\s+/g, ' ');
  let line = `${time} ${tag} ${message}${fields ? `  ${fields}` : ''}`;
  let error = entry.error as Entry | string | undefined;
  let indent = '    ';
  while (error) {
    if (typeof error === 'string') {
      line += indented(error, indent).join('');
      break;
    }
    line += indented(`${String(error.name ?? 'Error')}: ${String(error.message ?? '')}`, indent).join('');
    if (typeof error.stack === 'string') line += indented(error.stack.split('\n').slice(1, 4).join('\n'), indent).join('');
    error = error.cause as Entry | string | undefined;
    indent += '  ';
    if (error) line += `\n${indent}caused by:`;
  }
  return line;
}

export interface ReadableLine {
  time: string;
  level: string;
  message: string;
  /** Bare values as text, JSON values as JSON reads them. */
  fields: Record<string, unknown>;
}

const LINE = /^(\d\d:\d\d:\d\d\.\d{3}) (TRACE|DEBUG|INFO |WARN |ERROR|CRITICAL) (\S+(?: \S+)*)(?: {2}(.+))?$/;
// eslint-disable-next-line no-control-regex -- the terminal's colour codes
const ANSI = /\x1b\[[0-9;]*m/g;
/** Whether a line continues the one before it (an error, its stack and causes). */
export const isContinuation = (line: string) => line.startsWith('    ');

/** The end of the JSON value that starts at `from` (a string, list or object), or -1. */
function jsonEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (/\s/.test(c!)) return -1;
    if (!inString && depth === 0) return i + 1;
  }
  return -1;
}

/** A console line read strictly, or a sentence saying where it departs from the spelling. */
export function parseReadableLine(raw: string): ReadableLine | string {
  const m = LINE.exec(raw.replace(ANSI, ''));
  if (!m) return 'not "<time> <LEVEL> <message>  <key>=<value> ..."';
  const [, time, level, message, rest] = m;
  const fields: Record<string, unknown> = {};
  for (let i = 0; rest !== undefined && i < rest.length; ) {
    const eq = rest.indexOf('=', i);
    if (eq < 0) return `${JSON.stringify(rest.slice(i))} is not key=value`;
    const key = rest.slice(i, eq);
    if (!SNAKE_CASE.test(key)) return `the key ${JSON.stringify(key)} is not snake_case`;
    if (key in fields) return `the key ${key} appears twice`;
    const start = eq + 1;
    let end: number;
    if ('"[{'.includes(rest[start] ?? ' ')) {
      end = jsonEnd(rest, start);
      if (end < 0) return `the value of ${key} is not JSON without spaces outside its strings`;
      try {
        fields[key] = JSON.parse(rest.slice(start, end));
      } catch {
        return `the value of ${key} is not JSON`;
      }
    } else {
      end = rest.indexOf(' ', start);
      if (end < 0) end = rest.length;
      const value = rest.slice(start, end);
      if (!BARE.test(value)) return `the value of ${key} is neither a bare word nor JSON`;
      fields[key] = value;
    }
    if (end < rest.length && rest[end] !== ' ') return `the value of ${key} runs on without a space`;
    i = end + 1;
    if (end < rest.length && i >= rest.length) return 'the line ends with a space';
  }
  return { time: time!, level: level!.trim(), message: message!, fields };
}

const LEVELS = new Set(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL']);

/**
 * What is wrong with a JSON line of the log file (or of the metrics file: `_aws`, and the metric names
 * its directive declares, as CloudWatch names them), or undefined when it is as documented.
 */
export function jsonLineProblem(line: string): string | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(line) as Entry;
  } catch {
    return 'not JSON';
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'not a JSON object';
  const metrics = entry._aws as { CloudWatchMetrics?: { Metrics?: { Name: string }[] }[] } | undefined;
  const metricNames = new Set((metrics?.CloudWatchMetrics ?? []).flatMap((d) => (d.Metrics ?? []).map((m) => m.Name)));
  if (!metrics) {
    if (!LEVELS.has(String(entry.level))) return `its level ${JSON.stringify(entry.level)} is not one of ${[...LEVELS].join(', ')}`;
    for (const key of ['message', 'timestamp', 'service'])
      if (typeof entry[key] !== 'string' || entry[key] === '') return `it has no ${key}`;
  }
  const odd = Object.keys(entry).filter((k) => !SNAKE_CASE.test(k) && k !== '_aws' && !metricNames.has(k));
  return odd.length ? `its keys ${odd.map((k) => JSON.stringify(k)).join(', ')} are not snake_case` : undefined;
}
