import { describe, expect, test } from 'vitest';
import { opensAfterMs, probeWait } from '#webhooks/breaker';

/** The breaker's pure rules (functions/commons/webhooks/breaker.ts): when it opens, and how far apart its probes go. */
const SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 36_000_000];
const middle = () => 0.5;

describe('the circuit breaker', () => {
  test('opens after twice the first wait of failing, at least 5 s', () => {
    expect(opensAfterMs(SCHEDULE)).toBe(10_000);
    expect(opensAfterMs([100, 4_000])).toBe(5_000);
    expect(opensAfterMs([])).toBe(5_000);
  });

  test('probes at the schedule’s waits by rank, the last repeating, at most 30 minutes apart', () => {
    expect([0, 1, 2, 3, 4, 9].map((n) => probeWait(n, SCHEDULE, middle))).toEqual([
      5_000, 300_000, 1_800_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
    expect(probeWait(7, [10, 20], middle)).toBe(20);
    expect(probeWait(0, [], middle)).toBe(1_000);
  });

  test('moves each probe by up to 20% either way, as retries', () => {
    expect(probeWait(1, SCHEDULE, () => 0)).toBe(240_000);
    expect(probeWait(1, SCHEDULE, () => 0.999999)).toBe(360_000);
    // The cap is the wait before jitter: a 30-minute probe moves as the others do.
    expect(probeWait(9, SCHEDULE, () => 0)).toBe(1_440_000);
  });
});
