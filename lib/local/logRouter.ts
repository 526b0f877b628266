import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { readableLogLine } from './logLines';

/**
 * What Lambda and CloudWatch do with a function's output, for `npm start`: the functions write the
 * JSON lines they write on Lambda (Powertools Logger on stdout and stderr, embedded-metric lines on
 * stdout); this keeps each log line as written in `logFile`, each metrics line in `metricsFile`, and
 * shows the log lines on the console readably (logLines.ts: the spelling of both). Anything else the process prints passes through.
 */
export interface LogRouting {
  logFile: string;
  metricsFile: string;
  /** Show log lines on the console (readably), on the stream they were written to or all on stderr
   * (for a tool whose stdout is its answer); off, only the files get them. */
  echo: boolean | 'stderr';
}

function parse(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A file appended to synchronously: a line is in it when its write returns, even if the process exits next. */
function appendOnly(path: string): { write(line: string): void; close(): void } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  return { write: (line) => void writeSync(fd, line), close: () => closeSync(fd) };
}

/** Routes this process's stdout and stderr as described above, until `stop()`. */
export function routeProcessOutput(routing: LogRouting): { stop(): Promise<void> } {
  const logs = appendOnly(routing.logFile);
  const metrics = appendOnly(routing.metricsFile);
  const restore: (() => void)[] = [];
  const writeStderr = process.stderr.write.bind(process.stderr) as (chunk: string) => boolean;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: string) => boolean;
    const color = stream.isTTY === true;
    let partial = '';
    const route = (line: string) => {
      const entry = parse(line);
      if (entry && '_aws' in entry) metrics.write(`${line}\n`);
      else if (entry && typeof entry.level === 'string' && 'message' in entry) {
        logs.write(`${line}\n`);
        if (routing.echo === 'stderr') writeStderr(`${readableLogLine(entry, process.stderr.isTTY === true)}\n`);
        else if (routing.echo) write(`${readableLogLine(entry, color)}\n`);
      } else write(`${line}\n`);
    };
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) route(line);
      const callback = rest.find((r): r is () => void => typeof r === 'function');
      if (callback) process.nextTick(callback);
      return true;
    }) as typeof stream.write;
    restore.push(() => {
      if (partial) write(partial);
      stream.write = write as typeof stream.write;
    });
  }
  return {
    async stop() {
      for (const r of restore) r();
      logs.close();
      metrics.close();
    },
  };
}
