import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import routeLoads from '../../functions/commons/domain/routeLoads.json' with { type: 'json' };
import { WorkspaceRateLimits } from '#domain/workspaceRateLimits';
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
}) {
  const inBySecond: number[] = [];
  const from = o.from ?? 1_000_000;
  for (let s = 0; s < o.seconds; s++) {
    let admitted = 0;
    for (let i = 0; i < o.perSecond; i++) {
      const instance = o.limits[i % o.limits.length]!;
      const at = from + s * 1000 + Math.floor((i * 1000) / o.perSecond);
      // As a request runs (workspaceRateLimits.ts): let in, then counted as it drew (here its route's sample).
      if (await instance.admit(o.ws, o.route, at)) {
        admitted++;
        await instance.count(o.ws, o.route, o.units, at);
      }
    }
    inBySecond.push(admitted);
  }
  return inBySecond;
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
    const first = limits.count('acme', CREATE_LABEL, undefined, 1_000_000);
    // Ten more while the first send waits (a local process serves requests at once), then the send lands.
    for (let i = 1; i <= 10; i++) await limits.count('acme', CREATE_LABEL, undefined, 1_000_000 + i);
    held = false;
    release();
    await first;
    await limits.count('acme', CREATE_LABEL, undefined, 1_000_000 + 300);
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
});
