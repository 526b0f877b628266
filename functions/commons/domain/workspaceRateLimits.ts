import { logger } from '#observability/log';
import { type Units, withUnits } from '#store/consumed';
import { addDrawn, type Drawn } from '#store/workspaceLoads';
import routeLoads from './routeLoads.json' with { type: 'json' };
import { readWorkspaceRateLimits, type Budget } from './workspaceRateLimitsSetting';

/**
 * Workspace rate limits: a workspace's requests are refused (http/endpoint.ts: 429, `Retry-After`) before they draw
 * more than WORKSPACE_RATE_LIMITS a second on any one of its partitions, so a busy tenant slows down before its keys
 * saturate (a 503 from DynamoDB, on partitions its own other requests share). Where a route's request draws, and
 * how much its sample draws in all, is the capacity model's (`npm run capacity`: routeLoads.json, every project,
 * label and task of the workspace taken as one, as the mix takes them); a request is counted as its route's draws,
 * scaled up where its calls drew more than the sample's (the units DynamoDB says they consumed: a page of 100 large
 * items counts as such), a refused one as its route's sample (what clients send, not only what got in).
 *
 * Each function instance counts by workspace and partition, and adds its counts to the workspace's item of the second
 * (store/workspaceLoads.ts: one ADD, and a read of the second before) once they reach 5% of a limit, 2% while the
 * workspace is busy (a quarter of its limit or more), or a tenth of that once its last send is 5 s old (1 s while busy),
 * and at most every 250 ms. The
 * answer, every instance's counts of this second and of the one before, tells the instance the workspace's rate on
 * each partition over the last second. Over the limit, a request goes in with the chance limit/rate, so the requests
 * let in draw about the limit whatever is sent. A send that fails or is too slow changes nothing of what is known: the limits protect the table and never stand in the way when they cannot tell.
 */
interface RouteLoad {
  units: readonly [read: number, write: number];
  /** A partition of one project, label, task or webhook names which kind it is keyed by. */
  draws: readonly (readonly [code: string, read: number, write: number, kind?: EntityKind])[];
}
const ROUTES = routeLoads.routes as unknown as Record<string, RouteLoad>;

export type EntityKind = 'project' | 'label' | 'task' | 'webhook';
/** The project, label, task and webhook a request names (http/namedEntities.ts): each one it names exactly. */
export type Named = Partial<Record<EntityKind, string>>;

/**
 * A partition of one of a workspace's things is counted in one of BUCKETS by the thing a request names (a digit after
 * its code, the same in every instance), so that requests spread over many projects are not held as if on one; a request
 * that names none of that kind (a create, a bulk attach's tasks) is counted on the code alone, which every bucket adds
 * in. A bucket holds a quarter of the workspace's things: one hot thing is limited as itself (and its bucket's
 * neighbours with it), many are let through four times as much, and a second's item stays within 2 KB: 2 write units
 * a send at most (store/workspaceLoads.ts).
 */
const BUCKETS = 4;

/** Where a request's draw is counted, and where it is measured: its bucket, or the code and its busiest bucket. */
export function placeOf(code: string, kind: EntityKind | undefined, named: Named): string {
  const thing = kind && named[kind];
  if (!thing) return code;
  let hash = 0x811c9dc5;
  for (let i = 0; i < thing.length; i++) hash = Math.imul(hash ^ thing.charCodeAt(i), 0x01000193);
  // FNV-1a's high bits: its low ones follow only the low bits of each character (web-1, web-5 and web-9 would share).
  return `${code}${Math.floor(((hash >>> 0) / 2 ** 32) * BUCKETS)}`;
}

/**
 * When an instance sends its counts: once they reach a share of the limit (calm, and once the workspace is busy), or
 * a smaller share once its last send is `lateMs` old (so an instance of a cheap route learns too); never more often
 * than MIN_GAP_MS (a flood of one route is at most four sends a second per instance).
 */
const SEND = {
  calm: { share: 0.05, late: 0.005, lateMs: 5_000 },
  busy: { share: 0.02, late: 0.002, lateMs: 1_000 },
} as const;
const BUSY = 0.25;
const MIN_GAP_MS = 250;
/** How long what an instance learnt of a workspace's rates holds: older, the workspace is taken as calm. */
const FRESH_MS = 3_000;
/** Workspaces an instance keeps counts of: the one left alone longest is dropped past it. */
const MAX_WORKSPACES = 1_000;

interface Meter {
  /** What the instance counted since it last sent its counts, by partition code. */
  counted: Map<string, Drawn>;
  /** The largest share of the limit among `counted`. */
  share: number;
  /** The workspace's rates (units a second) as last learnt, and when. */
  seen?: { at: number; rates: Map<string, Drawn> };
  sentAt: number;
  sending: boolean;
}

const NONE: Drawn = { read: 0, write: 0 };

/**
 * The rate a draw meets on a partition (`code`), from a workspace's `rates` by place: a workspace's partition, its own;
 * a thing's (`place` given), its bucket's and, as any of them may be the thing, the requests that named none; a thing's
 * that the request does not name (`place` the code), those and the busiest bucket's.
 */
function rateOn(rates: ReadonlyMap<string, Drawn>, code: string, place: string | undefined): Drawn {
  const unnamed = rates.get(code) ?? NONE;
  if (place === undefined) return unnamed;
  let bucket = NONE;
  if (place !== code) bucket = rates.get(place) ?? NONE;
  else
    for (let b = 0; b < BUCKETS; b++) {
      const at = rates.get(`${code}${b}`) ?? NONE;
      bucket = { read: Math.max(bucket.read, at.read), write: Math.max(bucket.write, at.write) };
    }
  return { read: unnamed.read + bucket.read, write: unnamed.write + bucket.write };
}

/** Where each of a route's draws is counted for a request naming `named` (placeOf), in the order of its draws. */
const placesOf = (load: RouteLoad, named: Named): string[] => load.draws.map(([code, , , kind]) => placeOf(code, kind, named));

export class WorkspaceRateLimits {
  private readonly meters = new Map<string, Meter>();

  constructor(
    private readonly budget: Budget,
    private readonly send: typeof addDrawn = addDrawn,
    private readonly chance: () => number = Math.random,
  ) {}

  /** Whether a request of `route` in `ws` may go on; one that may not is counted as sent (its route's sample). */
  async admit(ws: string, route: string, named: Named, now = Date.now()): Promise<boolean> {
    const load = ROUTES[route];
    if (!load?.draws.length) return true;
    const places = placesOf(load, named);
    const worst = this.worst(this.meterOf(ws), load, places, now);
    if (worst <= 1 || this.chance() * worst < 1) return true;
    await this.tally(ws, load, places, undefined, now);
    return false;
  }

  /** Counts a request of `route` in `ws`: as its route's sample, or as `units` drew where its calls drew more. */
  async count(ws: string, route: string, named: Named, units: Units | undefined, now = Date.now()): Promise<void> {
    const load = ROUTES[route];
    if (load?.draws.length) await this.tally(ws, load, placesOf(load, named), units, now);
  }

  /** Counts a request at `places` (placesOf: where each of its route's draws is counted), and sends the counts when due. */
  private async tally(ws: string, load: RouteLoad, places: readonly string[], units: Units | undefined, now: number): Promise<void> {
    const meter = this.meterOf(ws);
    // Never less than the sample: a smaller request, or a store that reports less (DynamoDB Local bills a transaction's
    // items once, and no index), still counts as one.
    const scale = (side: 0 | 1) => (units && load.units[side] > 0 ? Math.max(1, (side ? units.write : units.read) / load.units[side]) : 1);
    const [read, write] = [scale(0), scale(1)];
    load.draws.forEach(([, r, w], i) => {
      const drawn = meter.counted.get(places[i]!) ?? { read: 0, write: 0 };
      drawn.read += r * read;
      drawn.write += w * write;
      meter.counted.set(places[i]!, drawn);
      meter.share = Math.max(meter.share, drawn.read / this.budget.read, drawn.write / this.budget.write);
    });
    const when = SEND[this.worst(meter, load, places, now) >= BUSY ? 'busy' : 'calm'];
    const due = meter.share >= when.share || (meter.share >= when.late && now - meter.sentAt >= when.lateMs);
    if (due && !meter.sending && now - meter.sentAt >= MIN_GAP_MS) await this.sendCounts(ws, meter, now);
  }

  /** The largest share of the limit a request of the route meets on the workspace's partitions (0: nothing fresh known). */
  private worst(meter: Meter, load: RouteLoad, places: readonly string[], now: number): number {
    const seen = meter.seen;
    if (!seen || now - seen.at > FRESH_MS) return 0;
    let worst = 0;
    load.draws.forEach(([code, read, write, kind], i) => {
      const rate = rateOn(seen.rates, code, kind && places[i]);
      if (read > 0) worst = Math.max(worst, rate.read / this.budget.read);
      if (write > 0) worst = Math.max(worst, rate.write / this.budget.write);
    });
    return worst;
  }

  private meterOf(ws: string): Meter {
    const found = this.meters.get(ws);
    if (found) {
      // Kept in the order of use: the first is the one left alone longest.
      this.meters.delete(ws);
      this.meters.set(ws, found);
      return found;
    }
    if (this.meters.size >= MAX_WORKSPACES) this.meters.delete(this.meters.keys().next().value!);
    const meter: Meter = { counted: new Map(), share: 0, sentAt: 0, sending: false };
    this.meters.set(ws, meter);
    return meter;
  }

  private async sendCounts(ws: string, meter: Meter, now: number): Promise<void> {
    const counted = meter.counted;
    meter.counted = new Map();
    meter.share = 0;
    meter.sending = true;
    meter.sentAt = now;
    const second = Math.floor(now / 1000);
    try {
      const { current, before } = await this.send(ws, second, counted);
      // A sliding second: the second before, for the part of it still within the last second, and this one so far.
      const past = 1 - (now - second * 1000) / 1000;
      const rates = new Map<string, Drawn>();
      for (const code of new Set([...current.keys(), ...before.keys()])) {
        const so = current.get(code) ?? { read: 0, write: 0 };
        const was = before.get(code) ?? { read: 0, write: 0 };
        rates.set(code, { read: was.read * past + so.read, write: was.write * past + so.write });
      }
      meter.seen = { at: now, rates };
    } catch (error) {
      logger.warn("A workspace's counts were not sent; what was known of it holds until it is stale", { ws, error });
    } finally {
      meter.sending = false;
    }
  }
}

const budget = process.env.WORKSPACE_RATE_LIMITS ? readWorkspaceRateLimits(process.env.WORKSPACE_RATE_LIMITS) : undefined;
/** The process's limits, when WORKSPACE_RATE_LIMITS sets them (the deployed stack does; npm start when it is given). */
const processRateLimits: { limits?: WorkspaceRateLimits } = budget ? { limits: new WorkspaceRateLimits(budget) } : {};

/** Sets the process's limits as WORKSPACE_RATE_LIMITS would, or none: for a process that runs the handlers itself (the bench). */
export function limitWorkspaces(limits: Budget | undefined): void {
  processRateLimits.limits = limits && new WorkspaceRateLimits(limits);
}

/**
 * Runs a request of `route` (`GET /projects/{slug}`) in `ws`, naming `named`, within the workspace's rate limits: `ran`
 * false when it was refused, before `run` did anything; else what it answered (or threw), its units counted.
 */
export async function withinWorkspaceRateLimits<T>(
  ws: string,
  route: string,
  named: Named,
  run: () => Promise<T>,
): Promise<{ ran: false } | { ran: true; result: T }> {
  const { limits } = processRateLimits;
  if (!limits || !ws || !ROUTES[route]?.draws.length) return { ran: true, result: await run() };
  if (!(await limits.admit(ws, route, named))) return { ran: false };
  const done = await withUnits(run);
  await limits.count(ws, route, named, done.units);
  if ('error' in done) throw done.error;
  return { ran: true, result: done.result };
}
