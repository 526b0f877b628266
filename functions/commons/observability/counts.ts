/**
 * Business counts made deep in the code (the store's retry rounds), held until whoever answers the
 * invocation publishes them as metrics (http/observe.ts, events/observeBatch.ts), each draining only
 * the names its kind of invocation makes (a request never takes a cascade's count). On Lambda one
 * invocation runs at a time per instance, so the counts are that invocation's; locally, where every
 * function shares one process, a count made during concurrent invocations may be published with a
 * neighbour's (totals stay exact).
 */
export type CountName =
  | 'ConflictRetries'
  | 'CascadeItemsRemoved'
  | 'IdempotentReplays'
  | 'IdempotencyKeepFailures'
  | 'ProjectCopiesPending'
  | 'WebhookRecordRetries';

const pending = new Map<CountName, number>();

export function count(name: CountName, n = 1): void {
  pending.set(name, (pending.get(name) ?? 0) + n);
}

/** What was counted of `names` since they were last drained, and a clean slate for them. */
export function drainCounts(names: readonly CountName[]): [CountName, number][] {
  const out: [CountName, number][] = [];
  if (pending.size === 0) return out;
  for (const name of names) {
    const n = pending.get(name);
    if (n) {
      out.push([name, n]);
      pending.delete(name);
    }
  }
  return out;
}
