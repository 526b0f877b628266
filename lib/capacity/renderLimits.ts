import { STAGES } from '#cdk/stage';
import { DEFAULT_RATE_LIMIT } from '#domain/tokens';
import { MIX_REQUESTS } from './mix.ts';
import type { RowModel } from './model.ts';
import type { RouteLoads } from './routeLoads.ts';
import { WORST } from './worst.ts';

/** docs/capacity.md's section of the routes at the limits (worst.ts): each beside its sample, and the most any reads and writes. */

const units = (n: number) => (n >= 1_000 ? Math.round(n).toLocaleString('en-US') : n === 0 ? '0' : String(Number(n.toFixed(2))));
const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB`;
const times = (worst: number, sample: number) => (sample > 0 ? `${Number((worst / sample).toFixed(1))}x` : '-');

export function renderAtLimits(atLimits: RowModel[], samples: RowModel[]): string {
  const sampleOf = (row: string) => samples.find((s) => s.row === row);
  const most = (capacity: 'read' | 'write') =>
    atLimits.reduce((top, r) => (r.request[capacity] > top.request[capacity] ? r : top), atLimits[0]!);
  const [reads, writes] = [most('read'), most('write')];
  const lines = atLimits.map((r) => {
    const sample = sampleOf(r.row);
    return `| ${r.row} | ${r.scenario.replaceAll('|', '\\|')} | ${r.operations} | ${r.items} | ${units(r.request.read)} | ${units(r.request.write)} | ${units(r.stream.write)} | ${sample ? `${units(sample.request.read)} / ${units(sample.request.write)}` : '-'} | ${sample ? times(r.request.read, sample.request.read) : '-'} | ${kib(r.answerBytes ?? 0)} |`;
  });
  return `## At the limits: each route's worst case

The routes whose cost grows with their input, each asked for the largest answer it gives, in a workspace of its own
(\`${WORST.workspace}\`) whose items are as large as the API accepts: project names, descriptions and \`client_uuid\`s and label
titles at their byte bounds (docs/api.md, "Answer sizes"), a task with the most labels, a label on the most tasks one
request names, a webhook's deliveries failed after 50 attempts with the longest answer a log keeps. Measured as
the samples are; **sample** is the route's sample above (RCU / WCU), **x sample** its read units against the sample's,
**answer** the bytes of its answer's JSON (every one under the 5 MB docs/api.md bounds answers to: the test of this page
holds them there).

**No request reads more than ${units(reads.request.read)} read units** (${reads.row}, ${reads.scenario}) **nor writes more than
${units(writes.request.write)} write units** (${writes.row}, ${writes.scenario}).

| route | at the limits | DynamoDB calls | items | RCU | WCU | stream WCU | sample | x sample | answer |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${lines.join('\n')}
`;
}

/**
 * What the stack derives each route's method throttle from (lib/aws/methodThrottles.ts): by route
 * (`POST /webhooks/{id}/recover`), the most units a request of it read and wrote at the limits, and its
 * share of the realistic mix (what ordinary traffic sends it).
 */
export function routesAtLimits(atLimits: RowModel[]): Record<string, RouteAtLimits> {
  const found: Record<string, RouteAtLimits> = {};
  for (const r of atLimits) {
    const was = found[r.row] ?? { read: 0, write: 0, share: (MIX_REQUESTS.find(([row]) => row === r.row)?.[1] ?? 0) / 100, answer: 0 };
    found[r.row] = {
      read: Math.max(was.read, r.request.read),
      write: Math.max(was.write, r.request.write),
      share: was.share,
      answer: Math.max(was.answer, r.answerBytes ?? 0),
    };
  }
  return found;
}

/** A route's figures at the limits: the most read and write units a request took, its share of the mix, its largest answer in bytes. */
interface RouteAtLimits {
  read: number;
  write: number;
  share: number;
  answer: number;
}

/**
 * The limits a request meets before the table: a token's default, and a workspace's (WORKSPACE_RATE_LIMITS, the same on
 * every stage): the rate of the mix at which its requests draw the limit on one of the workspace's partitions, by
 * what each route's request draws there (`loads`, the functions' routeLoads.json).
 */
export function requestLimits(loads: RouteLoads): { name: string; rate: number; why: string }[] {
  const limit = STAGES.prod.workspaceRateLimits;
  const drawn = new Map<string, { read: number; write: number }>();
  for (const [route, per100] of MIX_REQUESTS) {
    for (const [code, read, write] of loads.routes[route]?.draws ?? []) {
      const d = drawn.get(code) ?? { read: 0, write: 0 };
      drawn.set(code, { read: d.read + (read * per100) / 100, write: d.write + (write * per100) / 100 });
    }
  }
  const [code, rate] = [...drawn]
    .map(([c, d]) => [c, Math.min(d.read > 0 ? limit.read / d.read : Infinity, d.write > 0 ? limit.write / d.write : Infinity)] as const)
    .sort((a, b) => a[1] - b[1])[0]!;
  return [
    {
      name: 'one token',
      rate: DEFAULT_RATE_LIMIT.rate,
      why: `the default per-token limit, ${DEFAULT_RATE_LIMIT.rate}/s burst ${DEFAULT_RATE_LIMIT.burst} (raisable per token)`,
    },
    {
      name: "one workspace's limits (this stack)",
      rate,
      why: `WORKSPACE_RATE_LIMITS, ${limit.read} read and ${limit.write} write units a second of each of its partitions, nine tenths of one (lib/cdk/stage.ts); the mix reaches them on \`${loads.slots[code]}\`; over them, 429`,
    },
  ];
}
