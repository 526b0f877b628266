import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * What the partition simulator refused, as the 503s' log lines say it: each 503 is logged with the
 * database's refusal as its error's cause, and the simulator's message names the partition key value
 * (and the index) that had no units left. Read from a byte offset of the stack's log file, so that a
 * step of the mix counts its own refusals alone.
 */
export interface Refusals {
  /** Where the log file ended when read: the next step's offset. */
  end: number;
  /** Partition (or, when the cause names none, the cause's kind), and how many 503s it refused, most first. */
  partitions: [string, number][];
}

const NAMED = /partition key value ("(?:[^"\\]|\\.)*")(?: of index (\S+))?(?: \((?:[^)]*)\))?.*?has no (read|write) units/;

export function refusalsSince(logFile: string, from: number): Refusals {
  const end = statSync(logFile, { throwIfNoEntry: false })?.size ?? 0;
  const counts = new Map<string, number>();
  if (end > from) {
    const bytes = Buffer.alloc(end - from);
    const fd = openSync(logFile, 'r');
    try {
      readSync(fd, bytes, 0, bytes.length, from);
    } finally {
      closeSync(fd);
    }
    for (const line of bytes.toString('utf8').split('\n')) {
      if (!line.includes('"request refused: database busy"')) continue;
      const where = partitionOf(JSON.parse(line) as { error?: LoggedError });
      counts.set(where, (counts.get(where) ?? 0) + 1);
    }
  }
  return { end, partitions: [...counts].sort((a, b) => b[1] - a[1]) };
}

interface LoggedError {
  name?: string;
  message?: string;
  cause?: LoggedError;
}

/** The refusal the line logs: its error (the database's, or a Busy whose cause it is). */
function partitionOf(line: { error?: LoggedError }): string {
  const refusal = line.error?.cause ?? line.error;
  const found = refusal?.message ? NAMED.exec(refusal.message) : null;
  if (!found) return `(${refusal?.name ?? 'no error logged'})`;
  const key = JSON.parse(found[1]!) as string;
  const item = /the item ("(?:[^"\\]|\\.)*") of/.exec(refusal!.message!);
  return `${found[2] ? `${found[2]} ` : ''}${key}${item ? `, its item ${JSON.parse(item[1]!) as string}` : ''} (${found[3]})`;
}
