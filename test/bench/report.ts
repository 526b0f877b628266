import { renderActivity, type ActivityBenchRow } from './activity.ts';
import { renderAtLimits, type LimitRow } from './limits.ts';
import { renderWebhooks, type WebhookBenchRow } from './webhooks.ts';
import { type LaneBenchRow, renderLanes } from './webhookLanes.ts';
import { type ClientSizeRow, renderClient } from './client.ts';
import { describeCalls, type Usage } from './capacity.ts';
import type { ColdResult } from './cold.ts';
import type { HistorySaturation } from './historySaturation.ts';
import { keysWithin, renderKeySaturation, type KeySaturation } from './keySaturation.ts';
import type { SaturationResult } from './saturation.ts';
import type { MixSaturation } from './saturationMix.ts';
import type { CostRow, KeyCostRow } from './cost.ts';
import type { E2eRow } from './e2e.ts';
import type { DeleteRow, HotLabelRow, ScaleRow } from './scale.ts';
import type { InboundBenchRow, StreamCostRow } from './stream.ts';
import { fmt, median, medianInterval, percentile, ratio, table } from './stats.ts';
import type { LineCosts, WarmRow } from './warm.ts';

/** The 95% interval of a bundle's median init ratio, from its per-round ratios to the floor. */
function initInterval(b: ColdResult['floor'], floor: ColdResult['floor']): [number, number] {
  return medianInterval(b.initMsAll.map((ms, round) => ms / floor.initMsAll[round]!));
}
const span = ([lo, hi]: [number, number]) => `${fmt(lo, 2)}-${ratio(hi)}`;

/** Prices assumed for the dollar figures (us-east-1, on-demand, as published when this was written). */
const PRICES = {
  readRequestUnitPerMillion: 0.125,
  writeRequestUnitPerMillion: 0.625,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  lambdaMemoryGb: 1,
  lambdaAssumedMs: 20,
  apiGatewayRestPerMillion: 3.5,
};

export interface Results {
  machine: { nproc: number; cpu: string; memoryGb: number; node: string; os: string };
  date: string;
  command: string;
  runtimeS: number;
  settings: Record<string, number>;
  cold: ColdResult;
  cost: CostRow[];
  warm: WarmRow[];
  lines: LineCosts;
  e2e: E2eRow[];
  scale: ScaleRow[];
  deletes: DeleteRow[];
  streamCost: StreamCostRow[];
  hot: HotLabelRow[];
  inbound?: InboundBenchRow;
  idempotency?: KeyCostRow[];
  webhooks?: WebhookBenchRow;
  lanes?: LaneBenchRow;
  client?: ClientSizeRow;
  activity?: ActivityBenchRow;
  atLimits?: LimitRow[];
  saturation?: SaturationResult;
  historySaturation?: HistorySaturation;
  keySaturation?: KeySaturation[];
}

const SIZE_TARGET = 450 * 1024;
const dollarsPerMillion = (u: Usage) => u.rcu * PRICES.readRequestUnitPerMillion + u.wcu * PRICES.writeRequestUnitPerMillion;
const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(3)}`;
const above = (h: Usage, m: Usage) => h.calls > m.calls || h.rcu > m.rcu + 1e-9 || h.wcu > m.wcu + 1e-9;

/**
 * Writes the target allows one conditional write beyond the access pattern's minimum, and why the
 * data model spends it. The minimum shown is the bare access pattern (what a non-resumable delete needs).
 */
const EXTRA_WRITE_REASONS: Record<string, string> = {
  'create-label': "the workspace's label count, moved in the transaction: it holds the limit of 1,000 labels against concurrent creates",
  'delete-label': "the workspace's label count, moved in the transaction as a create moves it",
};
/** Write units of one conditional write of an item under 1 KB: 2 in a transaction (1 alone). */
const ONE_CONDITIONAL_WRITE_WCU = 2;
/** Above the bare minimum by at most the one extra conditional write the target allows, for a stated reason. */
const withinTarget = (c: { endpoint: string; handler: Usage; minimum: Usage }) =>
  EXTRA_WRITE_REASONS[c.endpoint] !== undefined &&
  c.handler.calls - c.minimum.calls <= 1 &&
  c.handler.rcu <= c.minimum.rcu + 1e-9 &&
  c.handler.wcu <= c.minimum.wcu + ONE_CONDITIONAL_WRITE_WCU + 1e-9;
/** Bytes of Powertools (Logger, Metrics, their commons and invoke store) in a bundle. */
function powertoolsBytes(b: ColdResult['rows'][number]): number {
  return b.byPackage
    .filter(([pkg]) => pkg.startsWith('@aws-lambda-powertools/') || pkg === '@aws/lambda-invoke-store')
    .reduce((sum, [, n]) => sum + n, 0);
}

/** The five largest parts of a bundle beyond what the floor carries of each. */
function aboveFloor(b: ColdResult['rows'][number], floor: Map<string, number>): string {
  return b.byPackage
    .map(([pkg, bytes]) => [pkg, bytes - (floor.get(pkg) ?? 0)] as const)
    .filter(([, extra]) => extra >= 512)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 5)
    .map(([pkg, extra]) => `${pkg} +${kib(extra)}`)
    .join(', ');
}

/**
 * The libraries' floor beside the functions: what the libraries every route uses cost at init before any of the
 * project's code, and what the functions' median adds beyond it.
 */
function librariesFloor(cold: ColdResult): string {
  const l = cold.libraries;
  if (!l) return '';
  const functions = median(cold.rows.map((b) => b.ratioToFloor));
  return (
    `\n\nThe **libraries' floor** (\`test/bench/libraries.ts\`: the floor with Powertools Logger and Metrics, middy and its HTTP ` +
    `middlewares, and zod/mini with a three-field input schema built as it loads; none of the project's code): ${kib(l.bytes)}, ` +
    `init ${fmt(l.initMs, 0)} ms, ${ratio(l.ratioToFloor)} the floor (95% interval ${span(initInterval(l, cold.floor))}). ` +
    `The functions' median, ${ratio(functions)}, is ${fmt(Math.abs(100 * (functions - l.ratioToFloor)), 0)} points of the floor ` +
    `${functions >= l.ratioToFloor ? 'above' : 'below'} it: what the project's own code and schemas cost a cold start.`
  );
}

/** Cold init of every function, as a ratio to the floor built like it: the project's own aim. */
const INIT_TARGET = 1.15;
/** The guard every function stays under, and the median over all functions (issue of room to grow). */
const INIT_GUARD = 1.2;
const INIT_MEDIAN_TARGET = 1.12;
const SATURATION_TOLERANCE = 0.2;

function saturationRatios(s: SaturationResult | undefined, h: HistorySaturation | undefined, k: KeySaturation[] = []): string {
  if (!s) return 'not measured';
  const rows = s.rows.map((x) => `${x.route} ${fmt(x.measured / x.predicted, 2)}x`);
  const history = h
    ? [`the history's hot task ${historyWithin(h) ? 'refused nothing at 0.8x, and some at 1.2x' : 'not as the model says (section 6)'}`]
    : [];
  const names = k.map((x) => `\`${x.key}\``).join(' and ');
  const keyed = k.length
    ? [`${names} ${keysWithin(k) ? 'refused nothing at 0.8x, and some at 1.2x' : 'not as the model says (section 6)'}`]
    : ["step 2's keys not measured"];
  return [...rows, ...history, ...keyed, s.mix ? `the mix ${mixRatio(s.mix)}` : 'the mix not measured'].join('; ');
}

/**
 * Where the mix's refusals begin: midway between the last step that refused nothing and the first that refused any. The
 * mix's first key may be drawn on by a few of its requests (a workspace's writes: about 5 in 100), so past its saturation
 * it refuses a share of those, a small one of all answers: what the model predicts is where refusals begin, as for each
 * key alone (no refusal at 0.8x, some at 1.2x), not where they pass 1% of all answers (the knee, shown beside it).
 */
function mixOnset(m: MixSaturation): number | undefined {
  const first = m.steps.findIndex((x) => x.refused > 0);
  if (first === -1) {
    // Nothing refused: past the highest step, if the stack served it in full; else the machine could not offer the load.
    const last = m.steps[m.steps.length - 1]!;
    return servedInFull(last) ? last.offered : undefined;
  }
  return first === 0 ? m.steps[0]!.offered : (m.steps[first - 1]!.offered + m.steps[first]!.offered) / 2;
}

/**
 * Whether the stack answered a step at the rate it was offered (results before the served rate was kept: taken as so).
 * One that fell behind met its partitions with less than offered: its lack of refusals says nothing of the model.
 */
const SERVED_AT_LEAST = 0.95;
const servedInFull = (x: MixSaturation['steps'][number]) => x.served === undefined || x.served >= SERVED_AT_LEAST * x.offered;

/** A step's served rate as the tables show it ('-' in results from before it was kept). */
const servedCell = (x: MixSaturation['steps'][number]) => (x.served === undefined ? '-' : fmt(x.served, 1));

/** The highest rate a step of the mix was served at. */
const mostServed = (m: MixSaturation) => Math.max(...m.steps.map((x) => x.served ?? x.offered));

/** The mix's onset as a ratio to the model, or what stood in the way of measuring it. */
const mixRatio = (m: MixSaturation) => {
  const onset = mixOnset(m);
  return onset === undefined
    ? `not measured: nothing refused, and the stack served at most ${fmt(mostServed(m), 1)} requests per second (${fmt(mostServed(m) / m.predicted, 2)}x) of the mix`
    : `${fmt(onset / m.predicted, 2)}x`;
};

/** The history's keys within 20% of the model: no write refused spread at 0.8x its rate, some at 1.2x. */
const historyWithin = (h: HistorySaturation) => {
  const spread = (share: number) => h.steps.find((x) => x.layout === 'spread' && x.share === share);
  return spread(0.8)?.throttled === 0 && (spread(1.2)?.throttled ?? 0) > 0;
};

function renderHistorySaturation(h: HistorySaturation): string {
  return `### The history's keys

The history is written by the stream processor, not by a request: nothing answers 503, and a throttled write is retried.
In process against the same DynamoDB Local, through the simulator at \`${h.limits}\` (1/${h.scale}): batches of
${h.batch} entries of one task of one project (\`Label Attached\`), as appendActivity writes a stream batch, paced at a
share of the model's rate for the same batch (recorded and modelled as docs/capacity.md's rows are): first on
\`${h.firstKey}\`, ${fmt(h.modelled, 0)} entries a second at DynamoDB's limits, ${fmt(h.predicted, 1)} here. No write
refused at 0.8x and some at 1.2x is the model within 20%; each step starts with the partitions' buckets empty (a full
bucket's second of burst would widen that to about 0.74x-1.11x over a step). "Before" is the layout of the version before (the workspace's 4
shards, one partition a copy), which histories keep for 15 minutes after a version first writes them (during a deploy).

${table(
  ['layout', 'offered (x the model)', 'offered (entries/s)', 'recorded (entries/s)', 'writes throttled'],
  h.steps.map((x) => [x.layout, `${x.share}x`, fmt(x.offered, 1), fmt(x.recorded, 1), String(x.throttled)]),
)}
`;
}

/** The inbound events of the mix the local bus did not take, where any were lost: those steps were lighter by them. */
const lostEvents = (m: MixSaturation) => {
  const lost = m.steps.filter((x) => x.eventsLost);
  return lost.length
    ? ` Inbound events the local bus did not take (a reset connection): ${lost.map((x) => `${x.factor}x ${x.eventsLost}`).join(', ')}.`
    : '';
};

/** A step's 503s by the partition their log lines name, the three most first. */
const refusedOnCell = (x: MixSaturation['steps'][number]) =>
  x.refusedOn?.length
    ? x.refusedOn
        .slice(0, 3)
        .map(([where, n]) => `\`${where}\`: ${n}`)
        .join(', ')
    : '-';

/** The mix's onset as the section says it. */
function mixMeasured(m: MixSaturation): string {
  const onset = mixOnset(m);
  if (onset === undefined)
    return `**Not measured here: no step refused, and the stack served at most ${fmt(mostServed(m), 1)} requests per second (${fmt(mostServed(m) / m.predicted, 2)}x the prediction)**. A step the stack answered slower than offered (served below ${SERVED_AT_LEAST * 100}% of offered: this machine's CPU, not the table, held it back) met the partitions with less than offered, so its lack of refusals says nothing of the model.`;
  return `**Measured: refusals begin at ${fmt(onset, 1)} requests per second (${fmt(onset / m.predicted, 2)}x the prediction)**, midway between the last step refusing nothing and the first refusing
any; they pass 1% of all answers at ${fmt(m.measured, 1)} (${fmt(m.measured / m.predicted, 2)}x), midway between the last step refusing at most 1% and the first
refusing more (a key that few of the mix's requests draw on refuses a large share of those before 1% of all).`;
}

function renderMixSaturation(m: MixSaturation): string {
  return `### The realistic mix

The model's mix (docs/capacity.md, "Under a realistic mix": the same shares, and its inbound events on the local bus)
on one workspace, one project and one label, in steps of its predicted saturation (${fmt(m.modelled, 0)} requests per
second at DynamoDB's limits, first on \`${m.firstKey}\`; here ${fmt(m.predicted, 1)}). ${mixMeasured(m)}
The labels a step began and ended with: the mix makes labels twice as fast as it deletes them, so a step ends with more
than it began with, and what it left is deleted before the next${m.modelLabels ? ` (the model's workspace has ${m.modelLabels})` : ''}; every labels list the mix reads
reads them all. A 503's partition is the one its log line's refusal names.${lostEvents(m)}

${table(
  ['step', 'offered (req/s)', 'served (req/s)', 'answers', '503', 'refused', 'labels', "refused on (the 503s' logged causes, most first)"],
  m.steps.map((x) => [
    `${x.factor}x`,
    fmt(x.offered, 1),
    servedCell(x),
    String(x.answers),
    String(x.refused),
    `${fmt((100 * x.refused) / Math.max(1, x.answers), 1)}%`,
    x.labels ? `${x.labels[0]} -> ${x.labels[1]}` : '-',
    refusedOnCell(x),
  ]),
)}
`;
}

function renderSaturation(s: SaturationResult): string {
  return `## 6. Saturation: the partition simulator against the capacity model

A local stack of its own with \`DYNAMODB_PARTITION_LIMITS="${s.limits}"\`: 1/${s.scale} of a DynamoDB partition's read and
write units, so every rate of the capacity model ([docs/capacity.md](docs/capacity.md), at DynamoDB's limits) divides
by ${s.scale}. Each route is offered twice its predicted rate, open loop, by a token whose own limit is far above it; the
2xx answers completed per second after the first 3 seconds (the bucket's burst) are the measured saturation. The
workspace is made like the model's where the route's cost depends on it (as many labels for the list).

${table(
  [
    'route',
    'request',
    'model at DynamoDB limits (req/s)',
    `predicted here (/${s.scale})`,
    'offered (req/s)',
    'measured 2xx (req/s)',
    'measured / predicted',
    'answers',
  ],
  s.rows.map((x) => [
    x.route,
    x.scenario,
    fmt(x.modelled, 0),
    fmt(x.predicted, 1),
    fmt(x.offered, 1),
    fmt(x.measured, 2),
    fmt(x.measured / x.predicted, 2),
    Object.entries(x.statuses)
      .map(([k, v]) => `${v} x ${k}`)
      .join(', '),
  ]),
)}

${s.mix ? renderMixSaturation(s.mix) : ''}
${s.limited ? renderLimitedMix(s.limited.setting, s.limited.mix) : ''}`;
}

/** The mix with the workspace's limits on answers 429 past them, not 503: at most this share of a step's answers are 503s. */
const LIMITED_503_AT_MOST = 0.001;

/** Whether the limits held the mix: a step past the limits has 429s, and no step has more than a few 503s. */
const limitsHeld = (m: MixSaturation) =>
  m.steps.every((x) => x.refused <= LIMITED_503_AT_MOST * x.answers) && m.steps.filter((x) => x.factor > 1).every((x) => x.limited > 0);

function renderLimitedMix(setting: string, m: MixSaturation): string {
  return `### The realistic mix with the workspace's limits on

The same mix on a stack of its own that adds \`WORKSPACE_RATE_LIMITS="${setting}"\`: nine tenths of the simulator's partition,
as the prod stage sets them (functions/commons/domain/workspaceRateLimits.ts). Past the limits a request is answered 429
with \`Retry-After\` before it draws on the table, so the partitions stay under theirs: the target is 429s at every step
past the prediction and at most ${LIMITED_503_AT_MOST * 100}% of any step's answers 503 (${yes(limitsHeld(m))}). One local process counts
for the workspace here; deployed, every instance of every route function sends its counts to the same item a second.${lostEvents(m)}

${table(
  ['step', 'offered (req/s)', 'served (req/s)', 'answers', '2xx', '429', '503', '503 refused on (the logged causes, most first)'],
  m.steps.map((x) => [
    `${x.factor}x`,
    fmt(x.offered, 1),
    servedCell(x),
    String(x.answers),
    String(x.ok),
    String(x.limited),
    String(x.refused),
    refusedOnCell(x),
  ]),
)}
`;
}
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const yes = (ok: boolean) => (ok ? 'met' : '**missed**');

export function renderReport(r: Results): string {
  const lambdaPerMillion =
    PRICES.lambdaRequestPerMillion + 1e6 * (PRICES.lambdaAssumedMs / 1000) * PRICES.lambdaMemoryGb * PRICES.lambdaArmGbSecond;
  const costAbove = r.cost.filter((c) => above(c.handler, c.minimum) && !withinTarget(c));
  const biggest = Math.max(...r.cold.rows.map((b) => b.bytes));
  const worstInit = Math.max(...r.cold.rows.map((b) => b.ratioToFloor));
  const medianInit = median(r.cold.rows.map((b) => b.ratioToFloor));
  const worstWarm = Math.max(...r.warm.map((w) => w.ratio));
  const top = r.cold.rows.find((b) => b.name === 'attach-label') ?? r.cold.rows[0]!;
  const floorPkgs = new Map(r.cold.floor.byPackage);
  const out: string[] = [];
  out.push(`# Benchmarks

Generated by \`${r.command}\` on ${r.date} (total runtime ${fmt(r.runtimeS / 60, 1)} min)${r.cold.measuredAt ? `; section 2 (bundles, cold init and the client package, with its rows in the summary and its findings) measured again alone on ${r.cold.measuredAt} (\`npm run bench -- --cold-only\`)` : ''}. Do not edit by hand: run the
command again. Raw results of every run are kept (gitignored) in \`.bench/\`.

Commands: \`npm run bench\` (the full run; \`-- --skip-100k\` leaves out the 100,000-link deletes; a run's time is in the line above: 33 to 60 minutes with it on this project's 2-core machines), \`npm run bench -- --quick\` (a smoke run with fewer rounds),
\`npm run bench -- --report-only\` (render this file again from \`.bench/latest.json\`), \`npm run bench -- --cold-only\` (section 2 alone, measured again, for a change to a function's code).

**Machine:** ${r.machine.nproc} cores (\`nproc\`), ${r.machine.cpu}, ${fmt(r.machine.memoryGb, 1)} GB memory, Node ${r.machine.node}, ${r.machine.os}.
A shared, noisy machine: every timing below is a **ratio to a baseline measured in the same run** (interleaved where
possible) and a median over repeated runs; absolute milliseconds are shown only to give a sense of scale.
DynamoDB is DynamoDB Local (in memory, started by the benchmark through \`npm start\`'s entry point), so latencies
say nothing about real DynamoDB; calls and consumed capacity carry over (transactions excepted: see Findings).

**Prices assumed** (us-east-1, on demand): DynamoDB $${PRICES.readRequestUnitPerMillion} per million read request units (RRU),
$${PRICES.writeRequestUnitPerMillion} per million write request units (WRU); Lambda arm64 $${PRICES.lambdaArmGbSecond} per GB-second and
$${PRICES.lambdaRequestPerMillion} per million requests; API Gateway REST $${PRICES.apiGatewayRestPerMillion} per million requests.
At ${PRICES.lambdaMemoryGb * 1024} MB and an assumed ${PRICES.lambdaAssumedMs} ms billed per warm invocation, Lambda costs ${usd(lambdaPerMillion)} per million
invocations of a handler (plus the same again for the authorizer on requests that miss its cache).

## Summary

| target | result | status |
|---|---|---|
| reads at their minimum DynamoDB cost, writes at most one conditional write above it | ${costAbove.length} of ${r.cost.length} scenarios above that${costAbove.length ? `: ${[...new Set(costAbove.map((c) => c.endpoint))].join(', ')}` : ''} | ${yes(costAbove.length === 0)} |
| every bundle < 450 KiB | largest ${kib(biggest)} (${biggest.toLocaleString('en-US')} bytes) | ${yes(biggest < SIZE_TARGET)} |
| every function's cold init <= ${INIT_GUARD}x the floor, built exactly like the functions (logging and metrics in) | worst ${ratio(worstInit)} | ${yes(worstInit <= INIT_GUARD)} |
| the median of the functions' cold init <= ${INIT_MEDIAN_TARGET}x the floor | ${ratio(medianInit)}${r.cold.libraries ? ` (the libraries alone, before any of the project's code: ${ratio(r.cold.libraries.ratioToFloor)})` : ''} | ${yes(medianInit <= INIT_MEDIAN_TARGET)} |
| every function's cold init <= ${INIT_TARGET}x the floor (the project's own aim) | ${r.cold.rows.filter((b) => b.ratioToFloor > INIT_TARGET).length} of ${r.cold.rows.length} above | ${yes(worstInit <= INIT_TARGET)} |
| warm overhead <= 1.5x a bare handler | worst ${fmt(worstWarm, 3)}x | ${yes(worstWarm <= 1.5)} |
| list / find cost flat from 100 to 10,000 projects | calls and capacity ${r.scale.every((s) => s.large.usage.rcu === s.small.usage.rcu && s.large.usage.calls === s.small.usage.calls) ? 'identical' : '**differ**'}; latency ratios ${r.scale.map((s) => ratio(s.ratio)).join(', ')} (same raw Query: ${r.scale.map((s) => (s.rawRatio === undefined ? '-' : ratio(s.rawRatio))).join(', ')}) | ${yes(r.scale.every((s) => s.large.usage.calls === s.small.usage.calls && s.large.usage.rcu === s.small.usage.rcu && (s.ratio < 1.5 || (s.rawRatio !== undefined && s.ratio / s.rawRatio < 1.5))))} |
| 100 parallel attaches of one label to distinct tasks of one project: no 503 | ${r.hot
    .map(
      (h) =>
        `${h.parallel} parallel: ${Object.entries(h.statuses)
          .map(([k, v]) => `${v} x ${k}`)
          .join(', ')}`,
    )
    .join('; ')} | ${yes(r.hot.every((h) => !h.statuses['503'] && h.statuses['200'] === h.parallel))} |
| a delete answers in < 1 s at any size (the cascade drains from the stream) | ${r.deletes.map((d) => `${d.links.toLocaleString('en-US')} links: ${fmt(d.ms, 0)} ms`).join('; ')} | ${yes(r.deletes.every((d) => d.ms < 1000 && d.status === 200))} |
| big deletes leave nothing behind once drained | ${r.deletes.map((d) => `${d.leftovers} leftovers${d.violationsAfter === null ? '' : `, ${d.violationsAfter} violations`}`).join('; ')} | ${yes(r.deletes.every((d) => d.leftovers === 0 && !d.violationsAfter && d.status === 200))} |
| inbound events at their minimum calls per event | ${r.inbound ? `${fmt(r.inbound.usage.calls / r.inbound.events, 2)} calls per event (minimum ${r.inbound.minimumCalls}), ${fmt(r.inbound.perSecond, 0)} events/s locally` : 'not measured'} | ${yes(!!r.inbound && r.inbound.usage.calls === r.inbound.minimumCalls * r.inbound.events)} |
| one workspace saturates where the capacity model says (docs/capacity.md): measured with the partition simulator within ${SATURATION_TOLERANCE * 100}% | ${saturationRatios(r.saturation, r.historySaturation, r.keySaturation)} | ${yes(!!r.saturation?.mix && [...r.saturation.rows, { measured: mixOnset(r.saturation.mix) ?? Number.NaN, predicted: r.saturation.mix.predicted }].every((x) => Math.abs(x.measured / x.predicted - 1) <= SATURATION_TOLERANCE) && (!r.historySaturation || historyWithin(r.historySaturation)) && keysWithin(r.keySaturation ?? []))} |
| with the workspace's limits on, the mix past them is answered 429, not 503 (section 6) | ${r.saturation?.limited ? r.saturation.limited.mix.steps.map((x) => `${x.factor}x: ${x.limited} x 429, ${x.refused} x 503`).join('; ') : 'not measured'} | ${yes(!!r.saturation?.limited && limitsHeld(r.saturation.limited.mix))} |
| the stream processor at its minimum calls per change | ${r.streamCost.map((c) => `${c.usage.calls} / ${c.minimumCalls}`).join(', ')} | ${yes(r.streamCost.every((c) => c.usage.calls <= c.minimumCalls))} |
`);

  out.push(`## 1. DynamoDB cost per request

Each endpoint is invoked in process (real handler, API Gateway proxy event with the authorizer context) against
DynamoDB Local, with a client middleware on the shared \`db\` client that sets \`ReturnConsumedCapacity: 'TOTAL'\` and
sums \`ConsumedCapacity\` (arrays for transactions and batches). The **minimum** is a hand-written sequence of raw
DocumentClient calls that answers the same request correctly with this data model, measured the same way on
equivalent data. RCU here are read request units (1 per strongly consistent read of up to 4 KB, 0.5 eventually
consistent, 2 in a transaction); WCU are write request units (1 per KB written, including index copies, 2 in a
transaction). **$ / 1M** is the DynamoDB bill for a million such requests.

${table(
  ['endpoint', 'scenario', 'handler calls', 'RCU', 'WCU', '$ / 1M', 'minimum', 'min RCU', 'min WCU', 'min $ / 1M', 'verdict'],
  r.cost.map((c) => [
    c.endpoint,
    c.scenario,
    describeCalls(c.handler),
    fmt(c.handler.rcu, 1),
    fmt(c.handler.wcu, 1),
    usd(dollarsPerMillion(c.handler)),
    `${c.minimumIs} (${c.minimum.calls} calls)`,
    fmt(c.minimum.rcu, 1),
    fmt(c.minimum.wcu, 1),
    usd(dollarsPerMillion(c.minimum)),
    withinTarget(c) && above(c.handler, c.minimum)
      ? `within target: +1 conditional write (${EXTRA_WRITE_REASONS[c.endpoint]}), ${fmt(c.handler.wcu - c.minimum.wcu, 1)} WCU`
      : above(c.handler, c.minimum)
        ? `**above minimum** (+${c.handler.calls - c.minimum.calls} calls, +${fmt(c.handler.rcu - c.minimum.rcu, 1)} RCU, +${fmt(c.handler.wcu - c.minimum.wcu, 1)} WCU)`
        : 'at minimum',
  ]),
)}

What it means: a read endpoint at 1 RCU costs $0.125 per million requests in DynamoDB, far below Lambda (${usd(lambdaPerMillion)})
and API Gateway ($${PRICES.apiGatewayRestPerMillion}); the authorizer's token read adds 0.5 RCU per request that misses the authorizer cache.
Writes dominate the database bill: every project write also writes its two index copies (status, name).
${renderKeyCosts(r.idempotency)}
### Inbound events, per event

${
  r.inbound
    ? `${r.inbound.events} task, member and sprint events of one project through the consumer in SQS batches of 10 (\`test/bench/stream.ts\`): ` +
      `${fmt(r.inbound.seconds, 1)} s, ${fmt(r.inbound.perSecond, 0)} events per second on DynamoDB Local, one consumer; ` +
      `${fmt(r.inbound.usage.calls / r.inbound.events, 2)} calls (${describeCalls(r.inbound.usage)}), ${fmt(r.inbound.usage.rcu / r.inbound.events, 2)} RCU and ` +
      `${fmt(r.inbound.usage.wcu / r.inbound.events, 2)} WCU per event, ${usd(dollarsPerMillion(r.inbound.usage) / r.inbound.events)} per million events; ` +
      `minimum: ${r.inbound.minimum} (${r.inbound.minimumCalls} calls). ` +
      (
        r.inbound.stream
          ? `Then the stream processor counts the states' changes, in batches of 100 records: ${fmt(r.inbound.stream.calls / r.inbound.events, 2)} calls, ` +
            `${fmt(r.inbound.stream.rcu / r.inbound.events, 2)} RCU and ${fmt(r.inbound.stream.wcu / r.inbound.events, 2)} WCU per event (a receipt each, the project's kept stats once per batch), ` +
            `${usd(dollarsPerMillion(r.inbound.stream) / r.inbound.events)} per million events.`
          : ''
      )
    : 'Not measured in this run.'
}

${renderWebhooks(r.webhooks)}${renderLanes(r.lanes)}${renderActivity(r.activity)}${renderAtLimits(r.atLimits)}
### The stream processor, per change

Off the request path: what the stream processor spends on the records of a change (\`test/bench/stream.ts\`, a table
of its own, the records of each scenario processed as one batch). The minimum is the new design's: the use counter
read that decides whether \`labels_count\` moves, and one transaction writing the record's receipt (so a redelivered
record changes nothing) with the counter, and \`labels_count\` in the project's kept stats when it moves, with a check
that the project still exists; then the
history's entries of the batch: the workspace's position and history layout read (one BatchGetItem), and one transaction of up to 24 entries with the
position's move, each entry's mark (a redelivered record writes none again) and its copies (the workspace's shard,
the project's, the task's), each item two write units. The label the event names is kept on the link's item: no read.
Events are published to the bus, outside DynamoDB.

${table(
  ['scenario', 'stream records', 'events', 'calls', 'RCU', 'WCU', '$ / 1M changes', 'minimum', 'verdict'],
  r.streamCost.map((c) => [
    c.scenario,
    String(c.records),
    String(c.events),
    describeCalls(c.usage),
    fmt(c.usage.rcu, 1),
    fmt(c.usage.wcu, 1),
    usd(dollarsPerMillion(c.usage)),
    `${c.minimum} (${c.minimumCalls} calls)`,
    c.usage.calls <= c.minimumCalls ? 'at minimum' : `**above minimum** (+${c.usage.calls - c.minimumCalls} calls)`,
  ]),
)}
`);

  const pkgRows = top.byPackage.slice(0, 10).map(([pkg, bytes]) => [pkg, kib(bytes), floorPkgs.has(pkg) ? kib(floorPkgs.get(pkg)!) : '-']);
  out.push(`## 2. Bundle size and cold init

${r.cold.measuredAt ? `**Measured again on ${r.cold.measuredAt}, alone** (\`npm run bench -- --cold-only\`${r.cold.machine ? `, on ${r.cold.machine.cpu}, Node ${r.cold.machine.node}` : ''}): this section, the client package included, its rows in the summary and its findings; the other sections are from the run named at the top.\n\n` : ''}Each function is bundled with the stack's own esbuild settings (\`lib/cdk/bundling.ts\`, through \`test/bench/bundle.ts\`): esbuild, platform node, target node22, ESM,
bundle, minify, tree shaking, external source map, mainFields module,main, a \`require\` banner via createRequire, the AWS
SDK bundled but for the credential providers Lambda never loads, \`node:stream/web\` replaced by a lazy shim. The **floor** is a
function that only creates the DocumentClient and sends one GetCommand, **built exactly like the functions** (same
settings, same externals, same banner), so a ratio compares code, not two kinds of build. **Init** is measured in a fresh
\`node\` process: from process start until the bundle is imported, ${r.cold.rounds} rounds, each loading every bundle once in a new random
order; the ratio is taken per round against the floor and the median reported, with a 95% interval for that median
(order statistics, no assumption about the distribution): single starts vary a lot on this machine (the floor's own
init has an interquartile range of ${fmt(percentile(r.cold.floor.initMsAll, 25), 0)}-${fmt(percentile(r.cold.floor.initMsAll, 75), 0)} ms here), so the
interval says how far another run of the same code could move a median. **Load** is the import alone (without
Node's own start-up). Every function carries Powertools Logger and Metrics. Sizes are minified bytes; KiB = 1,024 bytes.

Floor: ${kib(r.cold.floor.bytes)}, init ${fmt(r.cold.floor.initMs, 0)} ms (load ${fmt(r.cold.floor.loadMs, 0)} ms).${librariesFloor(r.cold)}

${table(
  [
    'function',
    'minified',
    'vs floor',
    'size < 450 KiB',
    'init (ms)',
    'init / floor',
    '95% interval',
    'load / floor',
    `init <= ${INIT_TARGET}x`,
  ],
  [...r.cold.rows, r.cold.traced].map((b) => [
    b === r.cold.traced ? `${b.name} (not deployed)` : b.name,
    `${kib(b.bytes)} (${b.bytes.toLocaleString('en-US')} B)`,
    `+${kib(b.bytes - r.cold.floor.bytes)}`,
    yes(b.bytes < SIZE_TARGET),
    fmt(b.initMs, 0),
    ratio(b.ratioToFloor),
    span(initInterval(b, r.cold.floor)),
    ratio(b.loadRatioToFloor),
    yes(b.ratioToFloor <= INIT_TARGET),
  ]),
)}

The last row is get-project with Powertools Tracer instrumenting its DynamoDB client (\`test/bench/traced.ts\`): what
tracing the client would cost every cold start. It is not deployed (docs/operations.md, "Traces").

What dominates a bundle (esbuild metafile of \`${top.name}\`, bytes in the output by package, next to the floor):

${table(['package', top.name, 'floor'], pkgRows)}

What it means: a cold start pays for loading the bundle before the first request is served; the AWS SDK is the
floor every function pays. See "Findings" for what the rest is and what would shrink it.

What each function's start loads beyond the floor: the five largest parts of its bundle that the floor does not carry
(or carries less of), by bytes in the output: a package, or a family of the project's own modules:

${table(
  ['function', 'above the floor', 'largest parts above the floor'],
  r.cold.rows.map((b) => [b.name, `+${kib(b.bytes - r.cold.floor.bytes)}`, aboveFloor(b, floorPkgs)]),
)}

${renderClient(r.client)}`);

  out.push(`## 3. Warm overhead of the shared stack

In-process, with DynamoDB answered by a **fair stub**: a client middleware at the innermost step (\`deserialize\`,
low priority) that returns the HTTP response DynamoDB would send, so marshalling, endpoint resolution, signing and
deserialising still run, in the handler and in the baseline alike (\`aws-sdk-client-mock\` skips all of that, and its sinon
matching was most of the old per-call time). Timed: the handler's own work (middy, header normalizer, scope and workspace
checks, JSON body handling, zod validation, response shaping, **its log line and its metrics line**, written to
/dev/null with a real write each, and **the workspace rate limits as deployed**: each request counted, with what its calls
drew, and the counts sent when due, their UpdateItem and GetItem answered by the stub), against a bare handler that makes the same SDK calls and returns the same JSON
envelope with no middleware, validation or logging (a project's read is two: its item and its kept stats, at once). The stub column is one bare \`send\` of the same command. Per-call mean over
${r.settings.warmIterations} iterations, ${r.settings.warmRuns} runs of handler and bare (which goes first alternates); median of per-run ratios.

${table(
  ['endpoint', 'handler (us/call)', 'bare (us/call)', 'SDK send alone (us/call)', 'ratio', '<= 1.5x'],
  r.warm.map((w) => [w.endpoint, fmt(w.handlerUs, 1), fmt(w.bareUs, 1), fmt(w.stubUs, 1), `${fmt(w.ratio, 3)}x`, yes(w.ratio <= 1.5)]),
)}

What it means: the SDK's own per-call work (serialisation, endpoint resolution, SigV4 signing, parsing) is most of a
warm request's CPU; the stack, with its log and metrics lines, adds a fraction of it, well under 1 ms of billed
duration at 1 GB (Lambda bills per millisecond).
`);

  out.push(`## 4. End to end under load

Through the local API (\`startLocalApi()\`: \`bin/start.ts\` with the API Gateway emulator, the token authorizer on every
request, and an in-memory DynamoDB Local) with autocannon, ${r.settings.e2eConnections} connections, ${r.settings.e2eSeconds} s per round, ${r.settings.e2eRounds} rounds;
the baseline is the same GetItem / Query sent straight from a DocumentClient in the benchmark process with the same
concurrency against the same DynamoDB Local, alternating with the API in each round. Medians over rounds; ratios are
per round, then the median.

${table(
  [
    'endpoint',
    'API req/s',
    'API p50 / p99 (ms)',
    'raw req/s',
    'raw p50 / p99 (ms)',
    'throughput ratio',
    'p50 ratio',
    'p99 ratio',
    'errors',
  ],
  r.e2e.map((e) => [
    e.endpoint,
    fmt(e.api.rps, 0),
    `${fmt(e.api.p50, 1)} / ${fmt(e.api.p99, 1)}`,
    fmt(e.raw.rps, 0),
    `${fmt(e.raw.p50, 1)} / ${fmt(e.raw.p99, 1)}`,
    ratio(e.rpsRatio),
    ratio(e.p50Ratio),
    ratio(e.p99Ratio),
    String(e.api.errors + e.raw.errors),
  ]),
)}

What it means: every API request here makes two DynamoDB calls (the authorizer's token GetItem, then the
handler's), because the local emulator does not cache authorizer results as API Gateway does; on 2 shared cores the
emulator, the handler and DynamoDB Local (a JVM) also compete for CPU. So the ratio is an upper bound on what the
service adds to a raw DynamoDB call; in production the authorizer result is cached per token (default 300 s).
`);

  out.push(`## 5. Scale

### List and find with 100 vs 10,000 projects in a workspace

Projects seeded with BatchWriteItem in exactly the item format \`projects.ts\` writes (\`storedProjectItem\`). Handler in
process against DynamoDB Local; median of ${r.settings.scaleIterations} interleaved calls each.

${table(
  ['request', '100: ms', '100: calls / RCU', '10,000: ms', '10,000: calls / RCU', 'latency ratio', 'same raw Query: ratio'],
  r.scale.map((s) => [
    s.query,
    fmt(s.small.ms, 1),
    `${s.small.usage.calls} / ${fmt(s.small.usage.rcu, 1)}`,
    fmt(s.large.ms, 1),
    `${s.large.usage.calls} / ${fmt(s.large.usage.rcu, 1)}`,
    ratio(s.ratio),
    s.rawRatio === undefined ? '-' : ratio(s.rawRatio),
  ]),
)}

The last column sends the handler's Query straight to DynamoDB Local for both workspace sizes: where it shows the
same ratio as the handler, the growth is DynamoDB Local's (same calls, same capacity; on DynamoDB a Query's cost
depends on the items it returns, not on the partition's size), not the service's.

### One label attached to many tasks at once

The traffic of automation that labels incoming tasks: \`n\` parallel POST /projects-labels/{slug}/attach, one label,
\`n\` distinct tasks of one project, through the local API. Attach writes the link, its label-side half and the
task's version (the per-task limit guard) and checks that the label and project exist; the per-label use counter
and \`labels_count\` are derived from the table's stream, so no two of these requests write a common item.
"counters drained" is the time from the last answer until the stream processor's use counter equals the links.

${table(
  ['parallel attaches', 'answers', 'burst (ms)', 'counters drained (ms)', 'use counter', 'labels_count'],
  r.hot.map((h) => [
    String(h.parallel),
    Object.entries(h.statuses)
      .map(([k, v]) => `${v} x ${k}`)
      .join(', '),
    fmt(h.ms, 0),
    fmt(h.drainMs, 0),
    String(h.useCount),
    String(h.labelsCount),
  ]),
)}

### Deleting a project or a label with 10,000 and 100,000 links

Links seeded directly with BatchWriteItem using the item builders \`links.ts\` writes with (both halves of every link
and a version per task); the stream processor derives their use counters and \`labels_count\` from the seeded
records, as for attaches ("seed drained" includes the seeding, and is the processor's throughput on one local shard).
Then one DELETE through the local API gateway emulator (\`createGateway\`, hosted in the benchmark process so that the
counting middleware sees the handler's calls; the count includes the authorizer's GetItem): it removes the project
or label item and writes its deletion job in one transaction, and answers. "Drained" is the time from the answer until
the cascade has finished (the job is gone) and every counter it moves has followed. Leftovers: items of the deleted
resource's links and use counters (and, for a project, task versions) still in the table after that; violations are
the invariant checker's, before (after seeding) and after.

${table(
  [
    'scenario',
    'items seeded',
    'seed drained (s)',
    'status',
    'request (ms)',
    'request calls',
    'drained (s)',
    'leftovers',
    'violations before / after',
  ],
  r.deletes.map((d) => [
    d.scenario,
    d.items.toLocaleString('en-US'),
    fmt(d.seedDrainMs / 1000, 1),
    String(d.status),
    fmt(d.ms, 0),
    `${d.usage.calls} (${describeCalls(d.usage)})`,
    fmt(d.drainMs / 1000, 1),
    String(d.leftovers),
    d.violationsAfter === null ? 'not scanned' : `${d.violationsBefore} / ${d.violationsAfter}`,
  ]),
)}
`);
  if (r.saturation) out.push(renderSaturation(r.saturation));
  if (r.historySaturation) out.push(renderHistorySaturation(r.historySaturation));
  if (r.keySaturation?.length) out.push(renderKeySaturation(r.keySaturation));
  out.push(renderFindings(r, costAbove));
  return out.join('\n');
}

/** Why an endpoint costs more than its minimum, where that is a choice rather than an accident. */

function renderFindings(r: Results, costAbove: CostRow[]): string {
  const floor = r.cold.floor;
  const top = r.cold.rows.find((b) => b.name === 'attach-label') ?? r.cold.rows[0]!;
  const handlers = r.cold.rows.filter((b) => b.name !== 'authorizer');
  const maxOver = Math.max(...handlers.map((b) => b.bytes - floor.bytes));
  const minOver = Math.min(...handlers.map((b) => b.bytes - floor.bytes));
  const missedInit = r.cold.rows.filter((b) => b.ratioToFloor > INIT_TARGET);
  const surelyOver = r.cold.rows.filter((b) => initInterval(b, floor)[0] > INIT_TARGET);
  const surelyUnder = r.cold.rows.filter((b) => initInterval(b, floor)[1] <= INIT_TARGET);
  const modelled = r.cost.some((c) => c.handler.modelled || c.minimum.modelled);
  const lines: string[] = ['## Findings', ''];
  lines.push(
    `- **DynamoDB cost.** ${costAbove.length === 0 ? 'Every read is at its minimum and every write within one conditional write of it.' : `Above the target: ${costAbove.map((c) => `${c.endpoint} (${c.scenario})`).join(', ')}.`} ` +
      `Fixed along the way: a color-only update-label read the label and then wrote it in a one-item transaction, billed at twice the ` +
      `write units (now one conditional UpdateItem: 1 call and 1 WCU instead of 2 calls, 1 RCU and 2 WCU); create-label no longer reads ` +
      `the title guard first (the guard's conditional write answers 409; a refused create leaves a gap in ids, never a reuse); deletes ` +
      `no longer read before marking; a label's or webhook's create or delete no longer reads the workspace's count before it moves ` +
      `it where the function's instance has seen that count kept (the count's condition holds the guess that it is kept, open and ` +
      `under the limit; a try that finds otherwise reads it, and keeps the label id it took). A workspace new to the instance has ` +
      `its count read first, one GetItem (and, where none is kept yet, a Query of the items it counts), where a wrong guess ` +
      `would cost a transaction written in vain.`,
  );
  for (const [endpoint, reason] of Object.entries(EXTRA_WRITE_REASONS))
    lines.push(`  ${endpoint}: one conditional write above the minimum, ${reason}.`);
  if (modelled) {
    lines.push(
      '- **Transactions are modelled, not measured.** DynamoDB Local reports a flat 2 capacity units for any TransactWriteItems, ' +
        'whatever its size. The figures above count what AWS bills instead: 2 WRU per written item (all items here are under 1 KB) ' +
        'and a ConditionCheck as a transactional read (2 RRU); writes of index copies caused by a transaction (an item a GSI ' +
        'projects whole, as the project item, rewrites its copy when it changes) are not included.',
    );
  }
  lines.push(
    `- **Bundles.** Every function is ${kib(minOver)} to ${kib(maxOver)} above the floor; the SDK (the floor) is ${kib(floor.bytes)} of it. ` +
      'Before this branch the handlers used the full `zod` (88 KiB of each bundle: its classic API, the JSON-schema converter it attaches ' +
      'to every schema, the English locale) and weighed 446,132 to 456,969 bytes (most over 450 KB in decimal units, all just under 450 KiB). They now use `zod/mini` ' +
      `(same schemas, same messages: the English locale is loaded explicitly), ${kib(new Map(top.byPackage).get('zod') ?? 0)} in ${top.name}. What remains above the floor is middy, ` +
      'Powertools, the shared code and zod/mini. The largest part left is the SDK itself: `@smithy/core` and `@aws-sdk/nested-clients` ' +
      '(the SSO/STS/login clients of the default credential chain). The Lambda bundles now leave the lazily imported credential ' +
      'providers (ini, SSO, process, web identity, HTTP, IMDS) to the runtime (`lib/bundling.ts`): the default chain only imports them ' +
      'when the environment holds no credentials, which never happens on Lambda; the floor is built the same way. Powertools ' +
      `Logger and Metrics (with their commons) add ${kib(powertoolsBytes(top))} to ${top.name}.`,
  );
  lines.push(
    `- **Cold init.** ${missedInit.length === 0 ? `Every function loads within ${INIT_TARGET}x of the floor built like it` : `Above ${INIT_TARGET}x of the floor: ${missedInit.map((b) => `${b.name} ${ratio(b.ratioToFloor)}`).join(', ')}`}; ` +
      `the worst is ${ratio(Math.max(...r.cold.rows.map((b) => b.ratioToFloor)))}, with Powertools Logger and Metrics in every function. ` +
      `How sure that is: ${surelyOver.length} of ${r.cold.rows.length} functions have their whole 95% interval above ${INIT_TARGET}x and ` +
      `${surelyUnder.length} (${surelyUnder.map((b) => b.name).join(', ') || 'none'}) ${surelyUnder.length === 1 ? 'has' : 'have'} it at or under; for the others this run cannot tell which side of ` +
      `${INIT_TARGET}x their median lies on. ` +
      'Init is measured as deployed, without `NODE_OPTIONS=--enable-source-maps`: with it, Node reads the source map and measures every ' +
      "line of a bundle at each cold start (about 4 points of the ratio, as a function's bundle and map are larger than the floor's); " +
      'the functions ship their maps and map the stacks of the errors they log themselves, when they log them ' +
      '(`functions/commons/observability/stacks.ts`). No function bundles the SQS client (about 9 points of a ratio): the three that ' +
      "send (the inbound consumer's dead letters, the webhook deliverer's retries, a recovery's attempts) load the one the nodejs22.x runtime " +
      'ships at their first message (`functions/commons/events/sqs.ts`). The webhook routes parse their refused address ranges at the first ' +
      'address they check and load DNS at the first name they resolve (`functions/commons/webhooks/refusedRanges.ts`, `addresses.ts`): a route ' +
      'saving a URL by host name does neither. GET /webhook-event-types never reaches the table, and its function makes no DynamoDB ' +
      'client (`database()` in `functions/commons/store/client.ts`: the workspace limits count a route that draws nothing without it). ' +
      'What keeps the ratio down besides: `@middy/core` imports `node:stream/web` (for streamed ' +
      'responses, which the service never sends), eight internal modules at every cold start; the bundles replace it with a shim that ' +
      'answers `instanceof` lazily (`lib/cdk/shims/stream-web.ts`); and a function carries only what its route uses: the paging schemas only where a route pages, ' +
      'the Idempotency-Key code (and its key store) only in the POST functions, the attach/detach input only in those two, the webhook address rules (ipaddr.js) only where a URL is saved or sent to, ' +
      "a webhook route's input schema only in that route (each shared schema is built by a call marked pure, so a bundle drops the ones its route never names: ping-webhook lost about 10 KB); " +
      'and the regular expressions with Unicode property classes (`\\p{Cc}`, in the text rules and quoted values) are built from strings at their first use ' +
      "(`functions/commons/domain/patterns.ts`): as literals, V8 checked them with ICU's tables while reading every bundle, about a millisecond of each cold start. " +
      'What a function still adds at init beyond the SDK is parsing and evaluating middy, zod/mini and Powertools and building its schemas. ' +
      `Tracing the DynamoDB client with Powertools Tracer would cost ` +
      `+${kib(r.cold.traced.bytes - (r.cold.rows.find((b) => b.name === 'get-project')?.bytes ?? 0))} and ${ratio(r.cold.traced.ratioToFloor)} of the floor for get-project ` +
      `(${ratio(r.cold.rows.find((b) => b.name === 'get-project')?.ratioToFloor ?? NaN)} without), so it is not deployed.`,
  );
  lines.push(
    `- **Warm overhead.** One bare DynamoDB call through the SDK (stubbed at the transport) costs ${r.warm.map((w) => `${fmt(w.stubUs, 0)} us`).join(' / ')} ` +
      `on this machine; the stack adds ${r.warm.map((w) => `${fmt(w.handlerUs - w.bareUs, 0)} us (${w.endpoint})`).join(', ')} per request, ` +
      `of which the Powertools log line costs ${fmt(r.lines.logUs, 1)} us and the metrics line ${fmt(r.lines.metricsUs, 1)} us (measured alone, written to /dev/null). ` +
      'The rest is middy, validation, the item decode and the full view and its JSON. Against a real DynamoDB round trip ' +
      '(milliseconds) the same overhead is a few percent.',
  );
  lines.push(
    `- **Big deletes.** The request no longer grows with the links: ${r.deletes.map((d) => `${fmt(d.ms, 0)} ms for ${d.links.toLocaleString('en-US')} links`).join(', ')} ` +
      '(one GetItem and one transaction: the item goes, its deletion job comes). The cascade then drains from the stream in rounds of at most ' +
      `400 items, each round one stream record, so it interleaves with other changes instead of holding its shard: ` +
      `${r.deletes.map((d) => `${fmt(d.drainMs / 1000, 1)} s for ${d.links.toLocaleString('en-US')} links`).join(', ')} here, on DynamoDB Local and one shard, ` +
      "counters included (a label delete moves every affected project's use counter through the links' own records, and writes " +
      'a detach for each link it removes: its event and its history entries). ' +
      `Correct once drained: ${r.deletes.map((d) => `${d.leftovers} leftovers${d.violationsAfter === null ? ' (not scanned for violations)' : ` and ${d.violationsAfter} violations`}`).join('; ')}.`,
  );
  const hot = r.hot.find((h) => h.parallel === 100);
  if (hot)
    lines.push(
      `- **One hot label.** ${hot.parallel} parallel attaches of one label to distinct tasks answered ${Object.entries(hot.statuses)
        .map(([k, v]) => `${v} x ${k}`)
        .join(
          ', ',
        )} (before the stream backbone: 59 x 200 and 41 x 503); the stream processor had the counters exact ${fmt(hot.drainMs, 0)} ms after the last answer.`,
    );
  lines.push(
    '- **End to end.** The local API pays the authorizer on every request (one more GetItem, 0.5 RCU) because the emulator does not cache ' +
      'authorizer results; API Gateway would, per token, for up to 300 s by default.',
  );
  return lines.join('\n') + '\n';
}

/** What an Idempotency-Key adds: the keyed request against the same request without a key, and its replay. */
function renderKeyCosts(rows: KeyCostRow[] | undefined): string {
  if (!rows?.length) return '';
  const delta = (a: Usage, b: Usage) =>
    `+${a.calls - b.calls} calls, +${fmt(a.rcu - b.rcu, 1)} RCU, +${fmt(a.wcu - b.wcu, 1)} WCU (+${usd(dollarsPerMillion(a) - dollarsPerMillion(b))} / 1M)`;
  return `
### What an Idempotency-Key adds

The same request with and without an \`Idempotency-Key\` (in process, metered like the table above), and the
replay of the keyed one (\`test/bench/cost.ts\`, \`measureIdempotencyCosts\`). A first request adds the claim (one
conditional PutItem) and the kept answer (one UpdateItem, billed by the answer's size, gzipped over 8 KB); a replay
is the refused claim (one conditional PutItem that returns the kept record) and nothing else. DynamoDB Local reports
no capacity for a refused conditional write; DynamoDB bills it as a write (at least 1 WCU, $0.625 per million), so a
replay costs about that on AWS, against 3 to 600 WCU for running these requests again.

${table(
  ['scenario', 'answer bytes', 'without a key', 'with a key', 'the key adds', 'replay'],
  rows.map((k) => [
    k.scenario,
    String(k.answerBytes),
    `${describeCalls(k.without)}; ${fmt(k.without.rcu, 1)} RCU, ${fmt(k.without.wcu, 1)} WCU`,
    `${describeCalls(k.withKey)}; ${fmt(k.withKey.rcu, 1)} RCU, ${fmt(k.withKey.wcu, 1)} WCU`,
    delta(k.withKey, k.without),
    `${describeCalls(k.replay)}; ${fmt(k.replay.rcu, 1)} RCU, ${fmt(k.replay.wcu, 1)} WCU (${usd(dollarsPerMillion(k.replay))} / 1M)`,
  ]),
)}
`;
}
