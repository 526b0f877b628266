/**
 * npm run emit -- "<detail-type>" '<detail json>' [--source <source>]
 *
 * Sends one inbound event (docs/events.md, inbound: Task Created, Task Completed, Task Reopened,
 * Task Deleted, Member Added, Member Removed, Sprint Created, Sprint Deleted) to the local service
 * `npm start` runs on PORT (default 3000), as the rest of the product would put it on EventBridge.
 * `event_id` and `occurred_at` are filled in when the detail has none. Example:
 *   npm run emit -- "Task Completed" '{"company_slug":"acme-corp","project_slug":"website-redesign","task_uuid":"t-1"}'
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import { cliArguments, cliError } from '#lib/cli';
import { runningStack } from '#local/stackDiscovery';

const usage = `usage: npm run emit -- "<detail-type>" '<detail json>' [--source <source>]
  <detail-type>: ${INBOUND_TYPES.join(', ')}`;
cliArguments(usage, ['--source']);
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { source: { type: 'string', default: 'local.emit' } },
});
const [detailType, detailJson] = positionals;
if (!detailType || !detailJson || positionals.length > 2) {
  console.error(usage);
  process.exit(2);
}
if (!(INBOUND_TYPES as readonly string[]).includes(detailType))
  cliError(`"${detailType}" is not an event this service takes in; the known ones are: ${INBOUND_TYPES.join(', ')}.`);
// The rule takes these types from any source but the service's own (it never consumes its own events).
if (values.source === EVENT_SOURCE)
  cliError(
    `The service ignores events from its own source "${EVENT_SOURCE}": leave --source out, or name the service that sends the event.`,
  );
let detail: Record<string, unknown>;
try {
  detail = JSON.parse(detailJson) as Record<string, unknown>;
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) throw new Error('not an object');
} catch (error) {
  console.error(`The detail must be a JSON object (${(error as Error).message}).\n${usage}`);
  process.exit(2);
}
detail.event_id ??= randomUUID();
detail.occurred_at ??= new Date().toISOString();

// The API npm start runs (found through the file it writes), unless PORT says where.
const stack = process.env.PORT === undefined ? runningStack() : undefined;
const api = stack?.apiUrl ?? `http://127.0.0.1:${Number(process.env.PORT ?? 3000)}`;
console.error(stack ? `Using the local stack npm start runs (pid ${stack.pid}): API ${api}.` : `Using the local API at ${api}.`);
const url = `${api}/__local/events`;
try {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Entries: [{ Source: values.source, DetailType: detailType, Detail: JSON.stringify(detail) }] }),
  });
  const answer = await res.text();
  if (!res.ok) {
    console.error(`${res.status}: ${answer}`);
    process.exit(1);
  }
  console.log(JSON.stringify({ detailType, detail, answer: JSON.parse(answer) }, null, 2));
} catch (error) {
  cliError(
    `No local API answers at ${api} (${(error as Error).message}): start it with npm start in another terminal${stack ? '' : ', or set PORT to the port it uses'}.`,
  );
}
