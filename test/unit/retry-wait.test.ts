import { describe, expect, test } from 'vitest';
import { retryWait } from '#webhooks/decide';
import { retryAfterMs } from '#webhooks/send';

const HOURS_10 = 10 * 3600_000;

describe('the wait before a webhook retry', () => {
  test("is the schedule's, moved by at most 20% either way", () => {
    expect(retryWait(60_000, undefined, HOURS_10, () => 0)).toBe(48_000);
    expect(retryWait(60_000, undefined, HOURS_10, () => 0.5)).toBe(60_000);
    expect(retryWait(60_000, undefined, HOURS_10, () => 0.999999)).toBe(72_000);
  });

  test("is never shorter than the endpoint's Retry-After, which counts up to the schedule's longest wait", () => {
    expect(retryWait(60_000, 600_000, HOURS_10, () => 0.5)).toBe(600_000);
    expect(retryWait(60_000, 1_000, HOURS_10, () => 0.5)).toBe(60_000);
    // More would make each failure look like a new outage to the endpoint's health: it would never be turned off.
    expect(retryWait(60_000, 30 * 86_400_000, HOURS_10, () => 0.5)).toBe(HOURS_10);
  });
});

describe('Retry-After as RFC 9110 writes it', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  test.each([
    ['120', 120_000],
    ['0', 0],
    [' 5 ', 5_000],
    ['Fri, 27 Nov 2026 12:02:00 GMT', 120_000],
    ['Fri, 27 Nov 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['2026', 2_026_000],
    [undefined, undefined],
  ])('%j -> %j ms', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});
