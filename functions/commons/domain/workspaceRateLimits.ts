import { logger } from '#observability/log';
import { addDrawn, type Drawn } from '#store/workspaceLoads';
import routeLoads from './routeLoads.json' with { type: 'json' };
import { readWorkspaceRateLimits, type Budget } from './workspaceRateLimitsSetting';

/**
 * Workspace limits: a workspace's requests are refused (http/endpoint.ts: 429, `Retry-After`) before they draw more on any one
 * of its partitions than WORKSPACE_RATE_LIMITS allows a second, so a busy tenant slows down before its keys
 * saturate (a 503 from DynamoDB, and a partition its own other requests share) and no request of it makes
 * another tenant's wait. What a request draws, by route, is the capacity model's (`npm run capacity`:
 * routeLoads.json, every project, label and task of the workspace taken as one, as the mix takes them).
 *
 * Each function instance counts what the requests it serves draw, by workspace and partition, and sends its
 * counts to the workspace's item of that second (store/workspaceLoads.ts: one ADD) once they reach a share of
 * the limit: 5% of it a second, 1% once the workspace is busy (a quarter of its limit or more). The answer is
 * every instance's counts of that second so far, and of the second before, from which the instance knows the
 * workspace's rate on each partition over the last second (the second before weighed by how much of it is
 * within it). Over the limit, a request is let in with the chance limit/rate, so the requests let in draw
 * about the limit whatever is sent; refused requests are counted too (what clients send, not what got in).
 * No request waits on a count but the one that sends it; a send that fails lets requests in (the limits
 * protect the table, they never stand in the way when they cannot tell).
 */
type Entry = readonly [code: string, read: number, write: number];
const ROUTES = routeLoads.routes as unknown as Record<string, readonly Entry[]>;

/** The share of the limit an instance counts before it sends its counts: calm, and once the workspace is busy. */
const SEND_AT = { calm: 0.05, busy: 0.01 } as const;
const BUSY = 0.25;
/** How long what an instance learnt of a workspace's rates holds: older, the workspace is taken as calm. */
const FRESH_MS = 3_000;
/** Workspaces an instance keeps counts of: the oldest is dropped past it. */
const MAX_WORKSPACES = 1_000;

interface Meter {
  /** What the instance counted since it last sent its counts, by partition code. */
  counted: Map<string, Drawn>;
  /** The largest share of the limit among `counted`. */
  share: number;
  /** The workspace's rates (units a second) as last learnt, and when. */
  seen?: { at: number; rates: Map<string, Drawn> };
  sending: boolean;
}

export class WorkspaceRateLimits {
  private readonly meters = new Map<string, Meter>();

  constructor(
    private readonly budget: Budget,
    private readonly send: typeof addDrawn = addDrawn,
    private readonly chance: () => number = Math.random,
  ) {}

  /** Counts a request of `route` in `ws`, and whether it may go on. */
  async admit(ws: string, route: string, now = Date.now()): Promise<boolean> {
    const entries = ROUTES[route];
    if (!entries?.length) return true;
    const meter = this.meterOf(ws);
    for (const [code, read, write] of entries) {
      const drawn = meter.counted.get(code) ?? { read: 0, write: 0 };
      drawn.read += read;
      drawn.write += write;
      meter.counted.set(code, drawn);
      meter.share = Math.max(meter.share, this.shareOf(drawn));
    }
    const busy = this.worst(meter, entries, now) >= BUSY;
    if (!meter.sending && meter.share >= SEND_AT[busy ? 'busy' : 'calm']) await this.sendCounts(ws, meter, now);
    const worst = this.worst(meter, entries, now);
    return worst <= 1 || this.chance() * worst < 1;
  }

  /** The largest share of the limit a request of these entries meets on the workspace's partitions (0: nothing fresh known). */
  private worst(meter: Meter, entries: readonly Entry[], now: number): number {
    const seen = meter.seen;
    if (!seen || now - seen.at > FRESH_MS) return 0;
    let worst = 0;
    for (const [code, read, write] of entries) {
      const rate = seen.rates.get(code);
      if (!rate) continue;
      if (read > 0) worst = Math.max(worst, rate.read / this.budget.read);
      if (write > 0) worst = Math.max(worst, rate.write / this.budget.write);
    }
    return worst;
  }

  private shareOf(drawn: Drawn): number {
    return Math.max(drawn.read / this.budget.read, drawn.write / this.budget.write);
  }

  private meterOf(ws: string): Meter {
    const found = this.meters.get(ws);
    if (found) return found;
    if (this.meters.size >= MAX_WORKSPACES) this.meters.delete(this.meters.keys().next().value!);
    const meter: Meter = { counted: new Map(), share: 0, sending: false };
    this.meters.set(ws, meter);
    return meter;
  }

  private async sendCounts(ws: string, meter: Meter, now: number): Promise<void> {
    const counted = meter.counted;
    meter.counted = new Map();
    meter.share = 0;
    meter.sending = true;
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
      logger.warn("A workspace's counts were not sent; its requests go on unlimited until they are", { ws, error });
    } finally {
      meter.sending = false;
    }
  }
}

const budget = process.env.WORKSPACE_RATE_LIMITS ? readWorkspaceRateLimits(process.env.WORKSPACE_RATE_LIMITS) : undefined;
/** The process's limits, when WORKSPACE_RATE_LIMITS sets them (the deployed stack does; npm start when it is given). */
const limits = budget ? new WorkspaceRateLimits(budget) : undefined;

/** Counts a request of `route` (`GET /projects/{slug}`) in `ws`: whether it may go on (false: over the workspace's limits). */
export async function workspaceAdmits(ws: string, route: string): Promise<boolean> {
  return !limits || !ws || limits.admit(ws, route);
}
