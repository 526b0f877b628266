import { createHash } from 'node:crypto';
import type { EntityKind } from '#domain/workspaceRateLimits';
import { atSaturation, byName, spreadOf } from './model.ts';
import { slotOf } from './mix.ts';
import type { Measured } from './scenarios.ts';

/**
 * What the functions' workspace limits (functions/commons/domain/workspaceRateLimits.ts) count each request of a
 * route as: the units its sample request draws on each partition of the workspace, as the mix sums them
 * (mix.ts: a sharded key's share of one shard, every project, label or task of the workspace taken as the one
 * the request names, the stream's work done per record). Written by `npm run capacity` to
 * functions/commons/domain/routeLoads.json: `slots`, each partition's short code (what the functions' counts are
 * kept under) to its name, and `routes`, each route's RouteLoad.
 */
export interface RouteLoads {
  slots: Record<string, string>;
  routes: Record<string, RouteLoad>;
}

/**
 * A route's sample request: the units its own calls drew in all (`units`: what a request of it is measured against,
 * its draws scaled by what it really drew), and its draws on the workspace's partitions (`draws`): a partition of
 * one project, label, task or webhook names which (`kind`), so that a request naming one is counted on its own.
 */
interface RouteLoad {
  units: [read: number, write: number];
  draws: ([code: string, read: number, write: number] | [code: string, read: number, write: number, kind: EntityKind])[];
}

/** A partition name's placeholder of one thing, and which: `<slug>` is a project's (STATS#, the history's by slug). */
const KINDS: [RegExp, EntityKind][] = [
  [/<(project|slug)>/, 'project'],
  [/<label>/, 'label'],
  [/<task>/, 'task'],
  [/<webhook>/, 'webhook'],
];

/** The kind of thing a partition is one of, if it is one of a workspace's things (not the workspace's, nor a shard). */
function kindOf(slot: string): EntityKind | undefined {
  return KINDS.find(([placeholder]) => placeholder.test(slot))?.[1];
}

/** A route's row (`GET /projects/{slug}`): the history's extra read shapes (`GET /activities (...)`) and consumers are not. */
const ROUTE_ROW = /^(GET|POST|PUT|DELETE) \/\S+$/;

/** A partition's code: short, and the same whatever else the page lists (a hash of its name). */
const codeOf = (slot: string) => createHash('sha256').update(slot).digest('hex').slice(0, 6);

const rounded = (n: number) => Number(n.toFixed(4));

export function routeLoads(typical: Measured[]): RouteLoads {
  const slots: Record<string, string> = {};
  const named = new Set<string>();
  const routes: RouteLoads['routes'] = {};
  for (const m of [...typical].sort((a, b) => byName(a.row, b.row))) {
    if (!ROUTE_ROW.test(m.row)) continue;
    const loads = new Map<string, { read: number; write: number }>();
    for (const t of atSaturation(m)) {
      const slot = slotOf(t);
      const load = loads.get(slot) ?? { read: 0, write: 0 };
      load[t.capacity] += t.units * spreadOf(t);
      loads.set(slot, load);
    }
    const own = m.request.flatMap((c) => c.touches);
    const total = (side: 'read' | 'write') => rounded(own.filter((t) => t.capacity === side).reduce((sum, t) => sum + t.units, 0));
    const draws = [...loads]
      .sort(([a], [b]) => byName(a, b))
      .map(([slot, load]): RouteLoad['draws'][number] => {
        slots[codeOf(slot)] = slot;
        named.add(slot);
        const kind = kindOf(slot);
        return kind
          ? [codeOf(slot), rounded(load.read), rounded(load.write), kind]
          : [codeOf(slot), rounded(load.read), rounded(load.write)];
      });
    routes[m.row] = { units: [total('read'), total('write')], draws };
  }
  if (Object.keys(slots).length !== named.size) throw new Error('two partitions share a code (lib/capacity/routeLoads.ts)');
  return { slots: Object.fromEntries(Object.entries(slots).sort(([a], [b]) => byName(a, b))), routes };
}
