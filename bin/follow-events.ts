/**
 * npm run events:follow: prints the local service's outbound events as they are published (the
 * stream processor of `npm start` appends them to EVENTS_FILE, default .data/events.jsonl), one per
 * line: time, detail-type, and the detail. `--all` prints the events already there first.
 */
import { cliArguments } from '#lib/cli';
import { existsSync, openSync, readSync, statSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir, findStack } from '#local/stackDiscovery';

const { values } = await cliArguments({
  usage: 'usage: npm run events:follow [-- --all]   (prints outbound events as they are published; --all: those already there first)',
  options: { all: 'boolean' },
});
// The events of the stack npm start runs (found through the file it writes: an in-memory run keeps
// them in the temporary folder), unless EVENTS_FILE says where.
const stack = process.env.EVENTS_FILE ? undefined : findStack();
const file = process.env.EVENTS_FILE || stack?.eventsFile || join(dataDir, 'events.jsonl');
const all = values.all === true;
let offset = !all && existsSync(file) ? statSync(file).size : 0;
let pending = '';

function show(line: string): void {
  try {
    const e = JSON.parse(line) as { time: string; 'detail-type': string; detail: unknown };
    console.log(`${e.time}  ${e['detail-type'].padEnd(18)} ${JSON.stringify(e.detail)}`);
  } catch {
    console.log(line);
  }
}

function readNew(): void {
  if (!existsSync(file)) return;
  const size = statSync(file).size;
  if (size < offset) offset = 0; // the file was replaced
  if (size === offset) return;
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(size - offset);
  readSync(fd, buffer, 0, buffer.length, offset);
  closeSync(fd);
  offset = size;
  const text = pending + buffer.toString('utf8');
  const lines = text.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) if (line.trim()) show(line);
}

const whose = stack
  ? ` (the local stack npm start runs: pid ${stack.pid}, API ${stack.apiUrl})`
  : process.env.EVENTS_FILE
    ? ' (EVENTS_FILE)'
    : '';
console.error(`Following ${file}${whose}; Ctrl-C to stop${all ? '' : ', --all shows earlier events too'}.`);
readNew();
setInterval(readNew, 200);
