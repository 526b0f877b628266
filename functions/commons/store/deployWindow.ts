/**
 * What a change of layout (more shards for a key) waits for, so that a function of the version before, still running
 * during a deploy or back after a rollback, misses nothing: the history's (activityLayout.ts) and the deliveries'
 * (webhooks/store/deliveryLayout.ts). Each writes as before for SPREAD_AFTER_MS after this version's first write.
 */

/** Longer than a deploy takes to bring every function of the stack to this version (or a failed one to roll back). */
export const SPREAD_AFTER_MS = 15 * 60_000;

/**
 * How far a writer's clock may run ahead of the recorder's: an entry is recorded no earlier than this before it
 * happened (`occurred_at`). Reads from `since` start this much earlier in key order (activityReads.ts); an event
 * that happened up to this long after a spread began may have been written before it, in the layout of before.
 */
export const CLOCK_SKEW_MS = 60_000;

/**
 * How long a stream record can be handled after it was written: the stream keeps a change 24 hours (a batch that fails
 * is retried, then replayed from it, within them).
 */
export const STREAM_RECORD_LIFE_MS = 24 * 3_600_000;
