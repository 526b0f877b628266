import type { RateLimit } from '#domain/tokens';
import atLimits from './routesAtLimits.json' with { type: 'json' };

/**
 * Each token's limits per method, derived from the capacity model (docs/capacity.md, "At the limits";
 * the figures come from `npm run capacity`, lib/aws/routesAtLimits.json). A token's rate limit holds
 * its requests over every route; a route whose request can read or write far more than its sample
 * gets a limit of its own beside it, in the token's usage plan, so one token cannot turn its whole
 * rate into a route's worst case:
 *   - at its worst, one token's requests to one route take at most a third of one partition's units a
 *     second (BUDGET: 1,000 read units, 333 write units), so a route may go as fast as that allows;
 *   - never slower than ordinary traffic sends it: its share of the realistic mix at the token's rate,
 *     twice over (a board opened, a day's labelling never meets a method's limit);
 *   - at least one request a second, and a route the token's own limit already holds gets none.
 * The deployed stack's plan of default limits carries them (lib/cdk/api.ts), and so do the plans the
 * token CLI makes for other limits (lib/aws/usagePlans.ts).
 */
const BUDGET = { read: 1_000, write: 333 } as const;
const HEADROOM = 2;

export interface MethodThrottle {
  /** The route as API Gateway names it: its resource path and HTTP method. */
  path: string;
  method: string;
  rateLimit: number;
  burstLimit: number;
}

type Figures = Record<string, { read: number; write: number; share: number; answer?: number }>;

export function methodThrottles(limit: RateLimit, figures: Figures = atLimits): MethodThrottle[] {
  return Object.entries(figures).flatMap(([route, worst]) => {
    const [method, path] = route.split(' ') as [string, string];
    const worstCase = Math.min(
      worst.read > 0 ? BUDGET.read / worst.read : Infinity,
      worst.write > 0 ? BUDGET.write / worst.write : Infinity,
    );
    const ordinary = worst.share * limit.rate * HEADROOM;
    const rate = Math.max(1, Math.floor(Math.max(worstCase, ordinary)));
    if (rate >= limit.rate) return [];
    return [{ path, method, rateLimit: rate, burstLimit: Math.min(limit.burst, 2 * rate) }];
  });
}

/** The throttles as a usage plan's stage takes them through the API: `/path/METHOD` to its limits. */
export function throttleMap(throttles: MethodThrottle[]): Record<string, { rateLimit: number; burstLimit: number }> {
  return Object.fromEntries(throttles.map((t) => [`${t.path}/${t.method}`, { rateLimit: t.rateLimit, burstLimit: t.burstLimit }]));
}
