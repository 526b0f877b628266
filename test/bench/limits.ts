import type { APIGatewayProxyResult } from 'aws-lambda';
import { repoRoot } from '#lib/paths';
import { callerFor } from '#local/fixtures';
import { requestsAtLimits, seedAtLimits, WORST } from '#lib/capacity/worst';
import { sending } from '#lib/capacity/scenarios';
import { useLocalRetryLane } from '#webhooks/queue';
import { routes } from '#http/routes';
import { describeCalls, metered, type Usage } from './capacity.ts';
import { fmt, log, median, table } from './stats.ts';

/**
 * Section 1, the heavy routes at their worst: the requests of docs/capacity.md's "At the limits" (the
 * same workspace, seeded by lib/capacity/worst.ts), run in process against the local API's DynamoDB
 * Local, each read READS times (its median time; what DynamoDB Local reports it consumed), each write once.
 */
export interface LimitRow {
  route: string;
  scenario: string;
  status: number;
  ms: number;
  usage: Usage;
  answerBytes: number;
}

const READS = 5;

export async function measureAtLimits(): Promise<LimitRow[]> {
  // A recovery queues on the retry lane: none here (nothing is sent), as in npm run capacity.
  useLocalRetryLane({ later: async () => undefined, deadLetter: async () => undefined });
  // Its webhook points at loopback, which this process's handlers then accept (as npm run capacity's).
  process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
  const call = callerFor(repoRoot, WORST.workspace);
  const sent = sending(call);
  log('  seeding the workspace at the limits');
  const targets = await seedAtLimits(sent, 'http://127.0.0.1:9/limits');
  const rows: LimitRow[] = [];
  for (const r of requestsAtLimits(targets)) {
    const route = routes.find((x) => x.name === r.name)!;
    const runs = route.method === 'GET' ? READS : 1;
    const times: number[] = [];
    let last: { usage: Usage; value: APIGatewayProxyResult } | undefined;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      last = await metered(() => call(r.name, r.path, r.query, r.body));
      times.push(performance.now() - started);
    }
    rows.push({
      route: `${route.method} ${route.path}`,
      scenario: r.scenario,
      status: last!.value.statusCode,
      ms: median(times),
      usage: last!.usage,
      answerBytes: Buffer.byteLength(last!.value.body ?? ''),
    });
  }
  return rows;
}

export function renderAtLimits(rows: LimitRow[] | undefined): string {
  if (!rows?.length) return '';
  return `
### The heavy routes at their worst

The requests of docs/capacity.md's "At the limits", in a workspace of the largest items the API accepts
(\`lib/capacity/worst.ts\`: 100 projects with names and descriptions at their byte bounds, 100 labels at theirs, a task
with 100 labels, a label on 101 tasks, 200 deliveries failed after 50 attempts), each run in process against
DynamoDB Local (\`test/bench/limits.ts\`): a read ${READS} times (its median), a write once. The units are what DynamoDB
Local reports (it counts no index copies; docs/capacity.md counts what DynamoDB bills, and each method's own limit
in the usage plans follows from those: docs/operations.md).

${table(
  ['route', 'at the limits', 'status', 'time', 'calls', 'RCU', 'WCU', 'answer'],
  rows.map((r) => [
    r.route,
    r.scenario,
    r.status,
    `${fmt(r.ms, 1)} ms`,
    `${r.usage.calls} (${describeCalls(r.usage)})`,
    fmt(r.usage.rcu, 1),
    fmt(r.usage.wcu, 1),
    `${fmt(r.answerBytes / 1024, 1)} KiB`,
  ]),
)}
`;
}
