/**
 * npm run emit -- "<detail-type>" '<detail json>' [--source <source>] [--timeout <seconds>]
 *
 * Sends one inbound event (docs/events.md, inbound: Task Created, Task Completed, Task Reopened,
 * Task Deleted, Member Added, Member Removed, Sprint Created, Sprint Deleted) to the local service
 * `npm start` runs on PORT (default 3000), as the rest of the product would put it on EventBridge,
 * waits for the inbound consumer to finish it (and, once counted, for the stream to move the stats: a read right
 * after shows it) and says what became of it: counted, ignored and why,
 * or dead-lettered with its reason (exit 1). `event_id` and `occurred_at` are filled in when the
 * detail has none. Example:
 *   npm run emit -- "Task Completed" '{"company_slug":"acme-corp","project_slug":"website-redesign","task_uuid":"t-1"}'
 */
import { randomUUID } from 'node:crypto';
import type { InboundOutcome } from '#domain/inbound';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import { cliArguments, cliError, usageError } from '#lib/cli';
import { didYouMean } from '#lib/didYouMean';
import type { Verdict } from '#local/inboundQueue';
import { findStack } from '#local/stackDiscovery';

const usage = `usage: npm run emit -- "<detail-type>" '<detail json>' [--source <source>] [--timeout <seconds>]
  <detail-type>  ${INBOUND_TYPES.join(', ')}
  --source       who sends it (default local.emit)
  --timeout      how long to wait for the consumer's verdict (default 30 s)`;
const { positionals, values } = await cliArguments({
  usage,
  options: { source: 'string', timeout: 'string' },
  args: { min: 2, max: 2, what: 'a detail-type and a detail (a JSON object)' },
});
const [detailType, detailJson] = positionals as [string, string];
const source = values.source ?? 'local.emit';
const timeout = values.timeout ?? '30';
if (!/^\d{1,3}$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 300)
  usageError(`--timeout must be a whole number of seconds from 1 to 300, not "${timeout}".`, usage);
if (!(INBOUND_TYPES as readonly string[]).includes(detailType)) {
  const near = didYouMean(detailType, INBOUND_TYPES, (type) => `"${type}"`);
  cliError(`"${detailType}" is not an event this service takes in; ${near ?? `the known ones are: ${INBOUND_TYPES.join(', ')}.`}`);
}
// The rule takes these types from any source but the service's own (it never consumes its own events).
if (source === EVENT_SOURCE)
  cliError(
    `The service ignores events from its own source "${EVENT_SOURCE}": leave --source out, or name the service that sends the event.`,
  );
let detail: Record<string, unknown>;
try {
  detail = JSON.parse(detailJson) as Record<string, unknown>;
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) throw new Error('not an object');
} catch (error) {
  usageError(`The detail must be a JSON object (${(error as Error).message}).`, usage);
}
detail.event_id ??= randomUUID();
detail.occurred_at ??= new Date().toISOString();

// The API npm start runs (found through the file it writes), unless PORT says where.
const stack = process.env.PORT === undefined ? findStack() : undefined;
const api = stack?.apiUrl ?? `http://127.0.0.1:${Number(process.env.PORT ?? 3000)}`;
console.error(stack ? `Using the local stack npm start runs (pid ${stack.pid}): API ${api}.` : `Using the local API at ${api}.`);
let res: Response;
try {
  // The stack answers when its consumer has finished the event, or after --timeout with it 'pending'.
  res = await fetch(`${api}/__local/events?wait=${timeout}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Entries: [{ Source: source, DetailType: detailType, Detail: JSON.stringify(detail) }] }),
    signal: AbortSignal.timeout((Number(timeout) + 10) * 1000),
  });
} catch (error) {
  if ((error as Error).name === 'TimeoutError')
    cliError(`The local API at ${api} did not answer within ${Number(timeout) + 10} s: see the npm start terminal, or restart it.`);
  cliError(
    `No local API answers at ${api} (${(error as Error).message}): start it with npm start in another terminal${stack ? '' : ', or set PORT to the port it uses'}.`,
  );
}
const answer = (await res.json().catch(() => ({}))) as { Entries?: { EventId?: string; Verdict?: Verdict }[] };
const [entry] = answer.Entries ?? [];
if (!res.ok || !entry?.EventId)
  cliError(`The local bus refused the event (${res.status} ${JSON.stringify(answer)}): check the detail-type and detail.`);
const project = `project "${String(detail.project_slug)}" of workspace ${String(detail.company_slug)}`;
console.log(`${detailType}: event_id ${String(detail.event_id)} (the event's own id, in its detail: the service counts each once)`);
console.log(`  bus id ${entry.EventId} (the id the bus gave this delivery, EventId in its PutEvents answer)`);

const IGNORED: Record<InboundOutcome, string | undefined> = {
  applied: undefined,
  unchanged: `it changes nothing in the stats of ${project} (an event_id already counted, a state older than the one kept, or the project's owner as a member)`,
  unknown_project: `there is no ${project}`,
  before_project: `it happened (occurred_at ${String(detail.occurred_at)}) before ${project} was created`,
};
const verdict = entry.Verdict ?? { outcome: 'pending' };
// The verdict follows the ids on stdout, in order (an exit status, not process.exit, so that nothing printed is cut off).
const failed: Partial<Record<Verdict['outcome'], string>> = {
  'dead-lettered': `dead-lettered: ${verdict.outcome === 'dead-lettered' ? verdict.reason : ''}. Fix the event and emit it again.`,
  pending: `not finished: the consumer had not finished the event after ${timeout} s; its outcome will show in the npm start terminal (or wait longer with --timeout).`,
  'not routed': 'not taken in: no rule of the service matches the event (its detail-type or source).',
};
const failure = failed[verdict.outcome];
if (verdict.outcome === 'applied') {
  // The consumer wrote the task's (member's, sprint's) state; the stats move from the stream (docs/events.md). Waited
  // for here, so that "the stats took it in" holds for the read a user makes next.
  await fetch(`${api}/__local/stream/caught-up`, { method: 'POST', signal: AbortSignal.timeout(Number(timeout) * 1000) }).catch(() =>
    console.error('The stream did not catch up in time: the stats show the event once it does.'),
  );
}
if (failure !== undefined) {
  console.log(failure);
  process.exitCode = 1;
} else {
  const ignored = IGNORED[verdict.outcome as InboundOutcome];
  console.log(ignored ? `ignored: ${ignored}; nothing counted.` : `counted: the stats of ${project} took it in.`);
}
