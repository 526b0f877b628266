import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import routeLoads from '../../functions/commons/domain/routeLoads.json' with { type: 'json' };
import { type Named, WorkspaceRateLimits } from '#domain/workspaceRateLimits';
import { readWorkspaceRateLimits } from '#domain/workspaceRateLimitsSetting';
import { MIX_REQUESTS } from '#lib/capacity/mix';
import { seeded } from '#lib/testmap/faults';
import { repoRoot } from '#lib/paths';
import { STAGES } from '#cdk/stage';
import type { Drawn, Seconds } from '#store/workspaceLoads';

/**
 * Workspace limits (functions/commons/domain/workspaceRateLimits.ts) against a table of counts kept here as the
 * workspace's item of each second is (every instance's ADDs summed): instances of a function are WorkspaceRateLimits
 * objects sharing it, time is given to each request, chance is a seeded generator.
 */
type Item = Map<string, Drawn>;

class Counts {
  readonly items = new Map<string, Item>();
  sends = 0;
  failing = false;
  readonly send = async (ws: string, second: number, counted: ReadonlyMap<string, Drawn>): Promise<Seconds> => {
    this.sends++;
    if (this.failing) throw new Error('ProvisionedThroughputExceededException');
    const item = this.items.get(`${ws} ${second}`) ?? new Map<string, Drawn>();
    for (const [code, d] of counted) {
      const was = item.get(code) ?? { read: 0, write: 0 };
      item.set(code, { read: was.read + d.read, write: was.write + d.write });
    }
    this.items.set(`${ws} ${second}`, item);
    const copy = (i: Item | undefined) => new Map([...(i ?? [])].map(([c, d]) => [c, { ...d }]));
    return { current: copy(item), before: copy(this.items.get(`${ws} ${second - 1}`)) };
  };
  /** Every unit counted of `ws`, on partition `code`, over every second. */
  total(ws: string, code: string, side: keyof Drawn): number {
    return [...this.items].filter(([k]) => k.startsWith(`${ws} `)).reduce((sum, [, item]) => sum + (item.get(code)?.[side] ?? 0), 0);
  }
}

const ROUTES = routeLoads.routes as unknown as Record<string, { units: [number, number]; draws: [string, number, number][] }>;
const CREATE_LABEL = 'POST /projects-labels';
const TALLY = Object.entries(routeLoads.slots).find(([, name]) => name === 'LABEL#<ws>#TALLY')![0];
const tallyWrites = ROUTES[CREATE_LABEL]!.draws.find(([code]) => code === TALLY)![2];
const BUDGET = { read: 30, write: 10 };

/** `perSecond` requests of `route` a second for `seconds`, spread evenly, over `instances`; what was let in, by second. */
async function drive(o: {
  limits: WorkspaceRateLimits[];
  ws: string;
  route: string;
  perSecond: number;
  seconds: number;
  from?: number;
  /** What each request let in drew (default: its route's sample). */
  units?: { read: number; write: number };
  /** The project, label, task or webhook each request names (default: none), or the i-th request of a second names. */
  named?: Named | ((i: number) => Named);
}) {
  const inBySecond: number[] = [];
  const from = o.from ?? 1_000_000;
  for (let s = 0; s < o.seconds; s++) {
    let admitted = 0;
    for (let i = 0; i < o.perSecond; i++) {
      const instance = o.limits[i % o.limits.length]!;
      const at = from + s * 1000 + Math.floor((i * 1000) / o.perSecond);
      const named = typeof o.named === 'function' ? o.named(i) : (o.named ?? {});
      // As a request runs (workspaceRateLimits.ts): let in, then counted as it drew (here its route's sample).
      if (await instance.admit(o.ws, o.route, named, at)) {
        admitted++;
        await instance.count(o.ws, o.route, named, o.units, at);
      }
    }
    inBySecond.push(admitted);
  }
  return inBySecond;
}

/** Where a request naming `named` is counted: the codes one count of it sends (a thing's partition, its code and bucket). */
async function placesOf(route: string, named: Named): Promise<string[]> {
  const counts = new Counts();
  await new WorkspaceRateLimits({ read: 1, write: 1 }, counts.send, seeded(0)).count('x', route, named, undefined, 1_000_000);
  return [...counts.items.get('x 1000')!.keys()];
}

/** Things whose buckets differ from each other's: `n` of them, named `<prefix><i>`, found by where they are counted. */
async function inBuckets(route: string, kind: keyof Named, prefix: string, n: number): Promise<string[]> {
  const byBucket = new Map<string, string>();
  for (let i = 0; byBucket.size < n; i++) {
    const thing = `${prefix}${i}`;
    const bucket = (await placesOf(route, { [kind]: thing })).filter((p) => p.length === 7).join();
    if (!byBucket.has(bucket)) byBucket.set(bucket, thing);
  }
  return [...byBucket.values()];
}

describe('workspace rate limits', () => {
  test('under its limit every request goes in, and every one is counted: sent once an instance counted 5% of the limit', async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits(BUDGET, counts.send, seeded(1));
    // 2 label creates a second: 2 x 3 write units of the tally, 60% of 10.
    const admitted = await drive({ limits: [limits], ws: 'acme', route: CREATE_LABEL, perSecond: 2, seconds: 20 });
    expect(admitted.every((n) => n === 2)).toBe(true);
    // Each create is 30% of the tally's limit, over 5%: each sends its count, none is left behind.
    expect(counts.sends).toBe(40);
    expect(counts.total('acme', TALLY, 'write')).toBeCloseTo(40 * tallyWrites, 6);
  });

  test('reads a calm instance counts are sent in bulk: one send for many requests', async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits({ read: 3_000, write: 1_000 }, counts.send, seeded(2));
    const admitted = await drive({ limits: [limits], ws: 'acme', route: 'GET /projects', perSecond: 100, seconds: 10 });
    expect(admitted.every((n) => n === 100)).toBe(true);
    // 2 read units a request on the status index: 5% of 3,000 is 150 units, 75 requests. The first send comes at a tenth
    // of that, the 8th request (it never sent: its last send is long past), then one every 75.
    expect(counts.sends).toBe(1 + Math.floor((1_000 - 8) / 75));
  });

  test('over its limit, the requests let in draw about the limit, from four instances, and the others are refused', async () => {
    const counts = new Counts();
    const chance = seeded(3);
    const limits = Array.from({ length: 4 }, () => new WorkspaceRateLimits(BUDGET, counts.send, chance));
    // 12 creates a second: 36 write units of the tally against a limit of 10 (3.3 creates).
    const admitted = await drive({ limits, ws: 'acme', route: CREATE_LABEL, perSecond: 12, seconds: 30 });
    const steady = admitted.slice(3);
    const mean = steady.reduce((a, b) => a + b, 0) / steady.length;
    expect(mean * tallyWrites).toBeGreaterThan(BUDGET.write * 0.7);
    expect(mean * tallyWrites).toBeLessThan(BUDGET.write * 1.3);
    // Refused requests are counted too: what was sent, 12 a second.
    expect(counts.total('acme', TALLY, 'write')).toBeCloseTo(30 * 12 * tallyWrites, 6);
  });

  test("a workspace over its limit takes nothing from another's: each has counts of its own", async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits(BUDGET, counts.send, seeded(4));
    const hot = await drive({ limits: [limits], ws: 'hot', route: CREATE_LABEL, perSecond: 12, seconds: 10 });
    expect(hot.slice(2).some((n) => n < 12)).toBe(true);
    // 2 creates a second: 6 write units of its tally, 60% of its limit, while the hot one is refused.
    const calm = await drive({ limits: [limits], ws: 'calm', route: CREATE_LABEL, perSecond: 2, seconds: 10, from: 1_000_000 + 2_000 });
    expect(calm.every((n) => n === 2)).toBe(true);
  });

  test('a route that draws nothing of a busy partition is not refused for it (a read beside writes over the limit)', async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits(BUDGET, counts.send, seeded(5));
    await drive({ limits: [limits], ws: 'acme', route: CREATE_LABEL, perSecond: 12, seconds: 5 });
    // Label creates write the copies; the label list reads them, and reads are under their limit.
    const reads = await drive({
      limits: [limits],
      ws: 'acme',
      route: 'GET /projects-labels',
      perSecond: 5,
      seconds: 1,
      from: 1_000_000 + 5_000,
    });
    expect(reads).toEqual([5]);
  });

  test('a send that fails lets requests in (the limits never stand in the way when they cannot tell), and sending resumes', async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits(BUDGET, counts.send, seeded(6));
    await drive({ limits: [limits], ws: 'acme', route: CREATE_LABEL, perSecond: 12, seconds: 3 });
    counts.failing = true;
    // What it knew goes stale in 3 seconds: from then, everything goes in.
    const blind = await drive({ limits: [limits], ws: 'acme', route: CREATE_LABEL, perSecond: 12, seconds: 6, from: 1_000_000 + 3_000 });
    expect(blind.slice(3)).toEqual([12, 12, 12]);
    counts.failing = false;
    const again = await drive({ limits: [limits], ws: 'acme', route: CREATE_LABEL, perSecond: 12, seconds: 4, from: 1_000_000 + 9_000 });
    expect(again.slice(1).some((n) => n < 12)).toBe(true);
  });

  test('a route the model does not count (one that reaches no partition) is let in and never sent', async () => {
    const counts = new Counts();
    const limits = new WorkspaceRateLimits(BUDGET, counts.send, seeded(7));
    expect(await drive({ limits: [limits], ws: 'acme', route: 'GET /webhook-event-types', perSecond: 500, seconds: 1 })).toEqual([500]);
    expect(await drive({ limits: [limits], ws: 'acme', route: 'GET /nowhere', perSecond: 5, seconds: 1 })).toEqual([5]);
    expect(counts.sends).toBe(0);
  });

  test('a request counts as what its calls drew: a page of large items is not counted as a sample page', async () => {
    const budget = { read: 3_000, write: 1_000 };
    const sample = new Counts();
    const asSample = await drive({
      limits: [new WorkspaceRateLimits(budget, sample.send, seeded(8))],
      ws: 'acme',
      route: 'GET /projects',
      perSecond: 5,
      seconds: 6,
    });
    expect(asSample.every((n) => n === 5)).toBe(true);
    // The same requests, each a page of 100 large projects: 1,122 read units of the status index (capacity.md, "At the limits").
    const heavy = new Counts();
    const limits = new WorkspaceRateLimits(budget, heavy.send, seeded(8));
    const admitted = await drive({
      limits: [limits],
      ws: 'acme',
      route: 'GET /projects',
      perSecond: 5,
      seconds: 6,
      units: { read: 1_122, write: 0 },
    });
    const status = Object.entries(routeLoads.slots).find(([, name]) => name === 'GSI1 WS#<ws>#STATUS#<status>')![0];
    expect(heavy.total('acme', status, 'read')).toBeGreaterThan(0);
    expect(admitted.slice(1).some((n) => n < 5)).toBe(true);
    const drawn = admitted.reduce((a, b) => a + b, 0) * 1_122;
    expect(drawn / 6).toBeLessThan(budget.read * 1.5);
  });

  test('an instance of a cheap route learns the workspace is hot, and that it is not any more, from late sends', async () => {
    const counts = new Counts();
    const budget = { read: 3_000, write: 1_000 };
    const copies = Object.entries(routeLoads.slots).find(([, name]) => name === 'WS#<ws>#COPY#<copy>')![0];
    // Other instances read the copies at twice their limit for 20 seconds, then stop.
    for (let s = 0; s < 20; s++) counts.items.set(`acme ${1_000 + s}`, new Map([[copies, { read: 6_000, write: 0 }]]));
    // This one reads one label a time, 20 a second: 0.125 read units of the copies each, a 24,000th of the limit.
    const limits = new WorkspaceRateLimits(budget, counts.send, seeded(9));
    const hot = await drive({ limits: [limits], ws: 'acme', route: 'GET /projects-labels/{slug}', perSecond: 20, seconds: 20 });
    expect(hot.slice(-10).every((n) => n < 20)).toBe(true);
    const calm = await drive({
      limits: [limits],
      ws: 'acme',
      route: 'GET /projects-labels/{slug}',
      perSecond: 20,
      seconds: 10,
      from: 1_000_000 + 20_000,
    });
    expect(calm.slice(-5)).toEqual([20, 20, 20, 20, 20]);
  });

  test('counts made while a send is under way are kept for the next: none lost, none twice', async () => {
    const counts = new Counts();
    let release: () => void = () => {};
    let held = true;
    const slow: typeof counts.send = async (...args) => {
      if (held) await new Promise<void>((r) => (release = r));
      return counts.send(...args);
    };
    const limits = new WorkspaceRateLimits(BUDGET, slow, seeded(10));
    const first = limits.count('acme', CREATE_LABEL, {}, undefined, 1_000_000);
    // Ten more while the first send waits (a local process serves requests at once), then the send lands.
    for (let i = 1; i <= 10; i++) await limits.count('acme', CREATE_LABEL, {}, undefined, 1_000_000 + i);
    held = false;
    release();
    await first;
    await limits.count('acme', CREATE_LABEL, {}, undefined, 1_000_000 + 300);
    expect(counts.total('acme', TALLY, 'write')).toBeCloseTo(12 * tallyWrites, 6);
  });

  test("the deployed limits let the mix in up to nine tenths of its first key's rate, and hold it under it", () => {
    const deployed = readWorkspaceRateLimits(`rcu=${STAGES.prod.workspaceRateLimits.read},wcu=${STAGES.prod.workspaceRateLimits.write}`)!;
    const perRequest = new Map<string, Drawn>();
    for (const [route, per100] of MIX_REQUESTS) {
      for (const [code, read, write] of ROUTES[route]?.draws ?? []) {
        const d = perRequest.get(code) ?? { read: 0, write: 0 };
        perRequest.set(code, { read: d.read + (read * per100) / 100, write: d.write + (write * per100) / 100 });
      }
    }
    const limited = Math.min(
      ...[...perRequest.values()].flatMap((d) => [
        d.read > 0 ? deployed.read / d.read : Infinity,
        d.write > 0 ? deployed.write / d.write : Infinity,
      ]),
    );
    const page = readFileSync(join(repoRoot, 'docs/capacity.md'), 'utf8');
    const first = Number(
      /The first key to saturate is `[^`]+`, at ([\d,]+) requests per second of the mix/.exec(page)![1]!.replaceAll(',', ''),
    );
    expect(limited).toBeGreaterThanOrEqual(Math.floor(first * 0.9));
    expect(limited).toBeLessThan(first);
  });

  test('requests spread over projects are not held as if on one: each bucket of projects has its own count', async () => {
    const projects = await inBuckets('GET /projects/{slug}', 'project', 'spread-', 4);
    // One read unit of each project's kept stats a request: 24 a second of each of 4 projects, 80% of its partition's
    // limit, 3.2 times it summed.
    const spread = (named: boolean) =>
      drive({
        limits: [new WorkspaceRateLimits(BUDGET, new Counts().send, seeded(11))],
        ws: 'acme',
        route: 'GET /projects/{slug}',
        perSecond: 96,
        seconds: 8,
        named: (i) => (named ? { project: projects[i % 4]! } : {}),
      });
    expect((await spread(true)).every((n) => n === 96)).toBe(true);
    // The same requests naming no project are held as if on one: as every request was before projects were told apart.
    expect((await spread(false)).slice(2).every((n) => n < 60)).toBe(true);
  });

  test('one hot project is limited as itself: a project of another bucket goes on, one of its bucket is held with it', async () => {
    const route = 'GET /projects/{slug}';
    const [hot, other] = await inBuckets(route, 'project', 'hot-', 2);
    const hotPlaces = (await placesOf(route, { project: hot! })).join();
    let neighbour = '';
    for (let i = 0; !neighbour; i++) if ((await placesOf(route, { project: `near-${i}` })).join() === hotPlaces) neighbour = `near-${i}`;
    const counts = new Counts();
    const instance = (seed: number) => [new WorkspaceRateLimits(BUDGET, counts.send, seeded(seed))];
    // 90 reads a second of one project: three times its partition's limit.
    const hotIn = await drive({ limits: instance(12), ws: 'acme', route, perSecond: 90, seconds: 6, named: { project: hot! } });
    expect(hotIn.slice(2).every((n) => n < 60)).toBe(true);
    // Then, on instances of their own, 20 a second of a project of another bucket, and of one of the hot one's.
    const then = { ws: 'acme', route, perSecond: 20, seconds: 1, from: 1_000_000 + 6_000 };
    expect(await drive({ ...then, limits: instance(13), named: { project: other! } })).toEqual([20]);
    expect((await drive({ ...then, limits: instance(14), named: { project: neighbour } }))[0]).toBeLessThan(15);
  });

  test('a request naming no one task (a bulk attach) meets the busiest bucket of tasks; one naming another task does not', async () => {
    const route = 'POST /projects-labels/{slug}/attach';
    const [hotTask, otherTask] = await inBuckets(route, 'task', 'task-', 2);
    const [hotLabel, otherLabel] = await inBuckets(route, 'label', 'label-', 2);
    const [hotProject, otherProject] = await inBuckets(route, 'project', 'project-', 2);
    const budget = { read: 30, write: 20 };
    const counts = new Counts();
    const instance = (seed: number) => [new WorkspaceRateLimits(budget, counts.send, seeded(seed))];
    // 60 attaches a second to one task: half a write unit each on the task's history, 1.5 times its limit (the
    // workspace's own partitions take a quarter each: 15 of 20).
    const named = { task: hotTask!, label: hotLabel!, project: hotProject! };
    await drive({ limits: instance(15), ws: 'acme', route, perSecond: 60, seconds: 6, named });
    const then = { ws: 'acme', route, perSecond: 10, seconds: 1, from: 1_000_000 + 6_000 };
    const elsewhere = { label: otherLabel!, project: otherProject! };
    expect(await drive({ ...then, limits: instance(16), named: { ...elsewhere, task: otherTask! } })).toEqual([10]);
    expect((await drive({ ...then, limits: instance(17), named: elsewhere }))[0]).toBeLessThan(10);
  });

  test('a request naming one task meets its bucket and the requests that named none: bulk attaches over the limit hold it', async () => {
    const route = 'POST /projects-labels/{slug}/attach';
    const [task] = await inBuckets(route, 'task', 'one-', 1);
    const labels = await inBuckets(route, 'label', 'label-', 4);
    const projects = await inBuckets(route, 'project', 'project-', 4);
    const budget = { read: 30, write: 20 };
    const counts = new Counts();
    const instance = (seed: number) => [new WorkspaceRateLimits(budget, counts.send, seeded(seed))];
    // 60 bulk attaches a second (several tasks each: none named), spread over labels and projects: half a write unit
    // each on the tasks' histories, 1.5 times a task partition's limit wherever they land; a quarter on the workspace's.
    const spread = (i: number) => ({ label: labels[i % 4]!, project: projects[(i >> 2) % 4]! });
    await drive({ limits: instance(18), ws: 'acme', route, perSecond: 60, seconds: 6, named: spread });
    // Then attaches of one task, on labels and projects spread alike: its bucket is empty, but any task may be theirs.
    const one = await drive({
      limits: instance(19),
      ws: 'acme',
      route,
      perSecond: 10,
      seconds: 1,
      from: 1_000_000 + 6_000,
      named: (i) => ({ ...spread(i), task: task! }),
    });
    expect(one[0]).toBeLessThan(10);
  });
});
