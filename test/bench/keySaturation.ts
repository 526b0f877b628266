import { randomBytes } from 'node:crypto';
import { modelRow } from '#lib/capacity/model';
import { installRecorder, recorded } from '#lib/capacity/recorder';
import { PartitionBuckets, type Draw } from '#local/partitions/buckets';
import { sideReader } from '#local/partitions/images';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from '#local/partitions/simulator';
import { db } from '#store/client';
import { DELIVERY_SHARDS, keys, LABEL_LINK_SHARDS, TASK_SHARDS, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { writeAttach } from '#store/links';
import { homeShard } from '#store/taskShardLayout';
import { createLabel } from '#domain/labels';
import { createProject } from '#domain/projects';
import { shardedNameOf } from '#store/shardedKeys';
import { shardOf } from '#store/shards';
import { writeWebhook } from '#local/sampleWebhooks';
import { outcomeOf } from '#webhooks/attempts';
import { deliveryId, newDelivery } from '#webhooks/deliveries';
import type { WebhookRecord } from '#webhooks/entities';
import { putNewDelivery, recordAttempt } from '#webhooks/store/webhookDeliveries';
import { BENCH_ACTOR } from './harness.ts';
import { fmt, log, table } from './stats.ts';

/**
 * Section 6, the sharded keys of step 2 one at a time: whether a key takes the work that loads it at the rate the
 * capacity model gives, in process against the bench's DynamoDB Local, through the partition simulator at 1/SCALE of
 * DynamoDB's limits on that key alone (the other keys of the work are left unlimited: each has its own row and proof).
 * The work is the store's own call that writes the key (a link's attach transaction; a delivery made and its attempt
 * recorded, as the deliverer does), paced open-loop at a share of the model's rate for the same work (recorded and
 * modelled as docs/capacity.md's rows are); refusals counted: none at 80% of it and some at 120% is the model within 20%.
 * Each step starts with the key's buckets empty (PartitionBuckets.emptyFrom): full, a bucket's second of burst over a
 * step of a few seconds would let a key of 0.74x its rate pass at 0.8x, and one of 1.11x refuse at 1.2x.
 * The tasks and delivery ids are taken in turn over the key's shards: at DynamoDB's rates a hash spreads thousands a
 * second evenly within a few percent, which at 1/100 a second's few draws would not show.
 */
const SCALE = 100;
const LIMITS = { rcu: 3_000 / SCALE, wcu: 1_000 / SCALE, burstSeconds: 1, split: 1 };
const STEPS = [0.8, 1.2];
/** Work in flight at once at most (the pacing is open-loop below it). */
const IN_FLIGHT = 32;

interface KeyWork {
  /** The key as the model names it (a sharded key as functions/commons/store/shardedKeys.ts does), and its kind in the model's row. */
  key: string;
  kind: 'label' | 'webhook' | 'status index' | 'project' | 'workspace';
  /** The partitions the work takes in turn (the key's shards). */
  shards: number;
  /** Whether a draw is on the key (default: a shard of the sharded key `key`). */
  onKey?: (draw: Draw) => boolean;
  what: string;
  /** Made once: the work's n-th unit. */
  prepare: () => Promise<(n: number) => Promise<unknown>>;
}

interface Step {
  share: number;
  /** Units of work offered and done a second. */
  offered: number;
  done: number;
  /** Calls the simulator refused on the key (each retried by the SDK), and units of work that failed for good. */
  throttled: number;
  failed: number;
}

export interface KeySaturation {
  key: string;
  what: string;
  limits: string;
  scale: number;
  /** The model's rate of the work on this key at DynamoDB's limits, and here. */
  modelled: number;
  predicted: number;
  steps: Step[];
}

/** A workspace of its own for one key's work. */
const keyWorkspace = (what: string) => `key-${what}-${randomBytes(4).toString('hex')}`;

/** For the n-th unit, the next unused id of `make(0)`, `make(1)`, ... whose shard is n's turn among `shards`. */
function inTurn(shards: number, make: (k: number) => string) {
  const next = new Map<number, number>();
  return (n: number) => {
    const shard = n % shards;
    for (let k = next.get(shard) ?? 0; ; k++) {
      const id = make(k);
      if (shardOf(id, shards) !== shard) continue;
      next.set(shard, k + 1);
      return id;
    }
  };
}

/** One label attached to new tasks of one project, the tasks taken in turn over `shards` (the key's). */
const attaches = (prefix: string, shards: number) => async () => {
  const ws = keyWorkspace(prefix);
  const project = await createProject(ws, { name: 'Hot', owner: BENCH_ACTOR });
  const label = await createLabel(ws, { title: 'Hot', color: 'AA0000' }, BENCH_ACTOR);
  const [projectRef, labelRef] = [
    { id: project.id, slug: project.slug },
    { id: label.id, slug: label.slug },
  ];
  const task = inTurn(shards, (k) => `task-${k}`);
  const fresh = (t: string) => ({ task: t, links: [], version: undefined, home: homeShard(t), linkShard: homeShard(t), elsewhere: [] });
  return (n: number) => writeAttach(ws, projectRef, labelRef, [fresh(task(n))], BENCH_ACTOR);
};

const LABEL_LINKS: KeyWork = {
  key: 'LABEL#<ws>#<label>',
  kind: 'label',
  shards: LABEL_LINK_SHARDS,
  what: "one label attached to a new task (the attach's transaction: the task's version, both halves of the link)",
  prepare: attaches('label', LABEL_LINK_SHARDS),
};

const TASK_SHARDS_WORK: KeyWork = {
  key: 'PROJECT#<project>',
  kind: 'project',
  shards: TASK_SHARDS,
  what: "the same, metered on the project's task shards (the task's version and the link's task side, at the task's home)",
  prepare: attaches('project', TASK_SHARDS),
};

const DELIVERIES: KeyWork = {
  key: 'WEBHOOK#<ws>#<webhook>',
  kind: 'webhook',
  shards: DELIVERY_SHARDS,
  what: "one event's delivery to one webhook, made and its attempt recorded as the deliverer does (the attempt's log entry too)",
  prepare: async () => {
    const ws = keyWorkspace('hooks');
    const webhook = { id: `wh_${randomBytes(12).toString('hex')}`, workspace: ws, url: 'https://hooks.example.com/bench' };
    await writeWebhook(webhook);
    const record = { ...webhook, events: ['*'] } as unknown as WebhookRecord;
    const at = Date.now();
    const id = inTurn(DELIVERY_SHARDS, (k) => deliveryId(at, webhook.id, `evt-${k}`));
    return async (n) => {
      const fresh = newDelivery(record, 'Label Attached', `evt-${n}`, id(n), { type: 'Label Attached', n });
      const until = new Date(Date.now() + 60_000).toISOString();
      const { delivery } = await putNewDelivery({ ...fresh, claimed_until: until });
      const attempt = { result: { status: 200, durationMs: 3 }, ok: true, at: new Date().toISOString() };
      const { set, remove, logged } = outcomeOf(attempt, 'automatic');
      await recordAttempt(delivery, set, remove, 'automatic', { logged, heldUntil: until });
    };
  },
};

const STATUS_INDEX: KeyWork = {
  key: 'GSI1 WS#<ws>#STATUS#<status>',
  kind: 'status index',
  shards: 1,
  what: "one project created in a workspace (its entry in the index of the workspace's projects by status)",
  onKey: (d) => d.index === 'GSI1',
  prepare: async () => {
    const ws = keyWorkspace('status');
    return (n) => createProject(ws, { name: `Project ${n}`, owner: BENCH_ACTOR });
  },
};

const LABEL_COPIES: KeyWork = {
  key: 'WS#<ws>#COPY#<copy>',
  kind: 'workspace',
  shards: WORKSPACE_COPIES,
  what: "one label read by its slug (GET /projects-labels/{slug}'s read: a copy of the label, store/copies.ts)",
  prepare: async () => {
    const ws = keyWorkspace('copies');
    const label = await createLabel(ws, { title: 'Hot', color: 'AA0000' }, BENCH_ACTOR);
    // readLabel's call: one strong GetItem of a copy, taken at random there; here in turn, as the other keys' shards are.
    return (n) =>
      db.send(new GetCommand({ TableName: tableName(), Key: keys.labelCopy(ws, label.slug, n % WORKSPACE_COPIES), ConsistentRead: true }));
  },
};

/** `work` paced at `rate` units a second for `seconds` (open-loop, at most IN_FLIGHT at once). */
async function run(work: (n: number) => Promise<unknown>, first: number, rate: number, seconds: number) {
  const started = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  let done = 0;
  let failed = 0;
  let n = first;
  // The first unit one interval in: the buckets, empty at the start, hold one interval's units by then.
  for (let next = started + 1000 / rate; performance.now() - started < seconds * 1000; next += 1000 / rate) {
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    const unit = work(n++).then(
      () => void done++,
      () => void failed++,
    );
    inFlight.add(unit);
    void unit.finally(() => inFlight.delete(unit));
  }
  await Promise.all(inFlight);
  return { done: done / ((performance.now() - started) / 1000), failed, next: n };
}

async function measureKey(work: KeyWork, seconds: number): Promise<KeySaturation> {
  installRecorder();
  const unit = await work.prepare();
  // The model's prediction: one unit (after a first that reads what a function reads once), modelled as a row is.
  await unit(0);
  const calls = await recorded(() => unit(1));
  const row = modelRow({ row: work.key, scenario: '', consumer: true, request: calls, stream: [], records: 0, events: 0 });
  const modelled = row.kinds[work.kind] ?? Number.POSITIVE_INFINITY;
  const predicted = modelled / SCALE;
  const throttles = { count: 0 };
  const buckets = new PartitionBuckets(LIMITS);
  // The key alone is limited: the draws on its shards are metered, the others pass.
  const on = work.onKey ?? ((d: Draw) => shardedNameOf(d.key, d.index) === work.key);
  const onKey = (draws: readonly Draw[]) => draws.filter(on);
  const empty = buckets.emptyAmong.bind(buckets);
  const charge = buckets.charge.bind(buckets);
  buckets.emptyAmong = (draws) => {
    const found = empty(onKey(draws));
    if (found) throttles.count++;
    return found;
  };
  buckets.charge = (draws) => charge(onKey(draws));
  db.middlewareStack.add(partitionSimulator(buckets, sideReader()), SIMULATOR_MIDDLEWARE);
  const steps: Step[] = [];
  let n = 2;
  try {
    for (const share of STEPS) {
      throttles.count = 0;
      const offered = share * predicted;
      // The key's buckets empty as the step begins (see the top), each with the refill of one of its periods (and the
      // first unit one interval in): a shard's first unit finds one to two periods' units, each later one a period's.
      buckets.emptyFrom((work.shards * 1000) / offered);
      const result = await run(unit, n, offered, seconds);
      n = result.next;
      const step = { share, offered, done: result.done, throttled: throttles.count, failed: result.failed };
      log(
        `${work.key} at ${share}x: ${step.done.toFixed(1)}/s of ${offered.toFixed(1)} (${step.throttled} calls throttled, ${step.failed} failed)`,
      );
      steps.push(step);
    }
    return {
      key: work.key,
      what: work.what,
      limits: `rcu=${LIMITS.rcu},wcu=${LIMITS.wcu},burst=${LIMITS.burstSeconds}`,
      scale: SCALE,
      modelled,
      predicted,
      steps,
    };
  } finally {
    db.middlewareStack.remove(SIMULATOR_MIDDLEWARE.name);
  }
}

/** Each key of step 2 that a request or the deliverer writes (its sharded keys, the index the counters left), measured in turn. */
export async function measureKeySaturation(seconds: number): Promise<KeySaturation[]> {
  const out: KeySaturation[] = [];
  for (const work of [LABEL_LINKS, TASK_SHARDS_WORK, DELIVERIES, STATUS_INDEX, LABEL_COPIES]) out.push(await measureKey(work, seconds));
  return out;
}

/** Each key within 20% of the model: nothing refused (and nothing failed) at 0.8x its rate, some refused at 1.2x; none measured is not. */
export const keysWithin = (keys: KeySaturation[]) =>
  keys.length > 0 &&
  keys.every((k) => {
    const below = k.steps.find((s) => s.share === 0.8);
    return below?.throttled === 0 && below.failed === 0 && (k.steps.find((s) => s.share === 1.2)?.throttled ?? 0) > 0;
  });

export function renderKeySaturation(keys: KeySaturation[]): string {
  const [first] = keys;
  if (!first) return '';
  return `### Step 2's keys, one at a time

In process against the same DynamoDB Local, through the simulator at \`${first.limits}\` (1/${first.scale}) on the key
measured alone (the other keys its work writes are left unlimited: each has its own row). The work is the store's own
call that writes the key, paced at a share of the model's rate for the same work (recorded and modelled as
docs/capacity.md's rows are); its tasks and delivery ids are taken in turn over the key's shards (at DynamoDB's rates a
hash spreads thousands a second evenly within a few percent, which at 1/${first.scale} a second's few draws would not
show). No call refused at 0.8x and some at 1.2x is the model within 20%; each step starts with the key's buckets empty
(a full bucket's second of burst would widen that to about 0.74x-1.11x over a step).

${table(
  ['key', 'work', 'the model (a second, at the limits / here)', 'offered (x the model)', 'done a second', 'calls throttled', 'failed'],
  keys.flatMap((k) =>
    k.steps.map((s) => [
      `\`${k.key}\``,
      k.what,
      `${fmt(k.modelled, 0)} / ${fmt(k.predicted, 1)}`,
      `${s.share}x (${fmt(s.offered, 1)}/s)`,
      fmt(s.done, 1),
      String(s.throttled),
      String(s.failed),
    ]),
  ),
)}
`;
}
