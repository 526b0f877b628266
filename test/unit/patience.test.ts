import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { deadlineOf, throughThrottling } from '#events/patience';

/**
 * The consumers' patience with a throttled table (functions/commons/events/patience.ts): throttling
 * is waited out until the deadline, anything else fails at once, and the deadline is the invocation's.
 * The clock is vitest's: pauses and slow attempts pass exactly as long as they say, on any machine (a
 * timer that fires a millisecond early on a busy machine once let a second attempt start).
 */
const throttled = () =>
  Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });

/** Runs `run` with every pause it takes passed at once on the fake clock; its outcome, settled. */
async function settled<T>(run: Promise<T>): Promise<PromiseSettledResult<T>> {
  const outcome = Promise.allSettled([run]);
  await vi.runAllTimersAsync();
  return (await outcome)[0];
}

const reason = (outcome: PromiseSettledResult<unknown>) => (outcome.status === 'rejected' ? outcome.reason : outcome);

describe('throughThrottling', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('work the table throttles is done again, and its answer returned once it goes through', async () => {
    let calls = 0;
    const outcome = await settled(
      throughThrottling(async () => {
        if (++calls < 3) throw throttled();
        return 'applied';
      }, Date.now() + 30_000),
    );
    expect(outcome).toEqual({ status: 'fulfilled', value: 'applied' });
    expect(calls).toBe(3);
  });

  test('any other failure is thrown at once: a poison record is not waited on', async () => {
    let calls = 0;
    const poison = new TypeError('cannot read the record');
    await expect(
      throughThrottling(async () => {
        calls++;
        throw poison;
      }, Date.now() + 30_000),
    ).rejects.toBe(poison);
    expect(calls).toBe(1);
  });

  test('throttling that outlasts the deadline is thrown, for the event source to retry', async () => {
    let calls = 0;
    const started = Date.now();
    const outcome = await settled(
      throughThrottling(async () => {
        calls++;
        throw throttled();
      }, started + 700),
    );
    expect(reason(outcome)).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    // Pauses of 100-200 ms, then 200-400 ms: a third attempt, whose next pause (400-800 ms) would pass 700.
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeLessThan(700);
  });

  test('no attempt starts that could not end before the deadline, at the pace of the last one', async () => {
    let calls = 0;
    const outcome = await settled(
      throughThrottling(async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 300));
        throw throttled();
      }, Date.now() + 700),
    );
    expect(reason(outcome)).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    // The first took 300 ms: a second after a pause of at least 100 ms would end past 700 ms.
    expect(calls).toBe(1);
  });

  test('without a deadline, nothing is waited for', async () => {
    let calls = 0;
    await expect(
      throughThrottling(async () => {
        calls++;
        throw throttled();
      }, 0),
    ).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(calls).toBe(1);
  });
});

test("an invocation's patience ends 10 s before its timeout", () => {
  const before = Date.now();
  const deadline = deadlineOf({ getRemainingTimeInMillis: () => 60_000 });
  expect(deadline - before).toBeGreaterThanOrEqual(50_000);
  expect(deadline - Date.now()).toBeLessThanOrEqual(50_000);
});
