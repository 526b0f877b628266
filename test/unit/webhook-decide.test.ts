import { describe, expect, test } from 'vitest';
import { decide, RECHECK_MS, type DeliveryState } from '#webhooks/decide';
import { MAX_QUEUE_DELAY_MS } from '#webhooks/settings';

/** The delivery engine's decision (webhooks/decide.ts), without AWS: every branch, and its edges. */
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const at = (msFromNow: number) => new Date(NOW + msFromNow).toISOString();
const pending = (next: string, more: Partial<DeliveryState> = {}): DeliveryState => ({ status: 'pending', next_attempt_at: next, ...more });

describe('decide', () => {
  test('a message for a due, free delivery attempts it (due exactly now, and long overdue)', () => {
    expect(decide(pending(at(0)), at(0), NOW)).toEqual({ do: 'attempt' });
    expect(decide(pending(at(-3 * 3600_000)), at(-3 * 3600_000), NOW)).toEqual({ do: 'attempt' });
  });

  test('not due yet: it waits the time left, in hops of at most 15 minutes', () => {
    expect(decide(pending(at(1)), at(1), NOW)).toEqual({ do: 'wait', ms: 1 });
    expect(decide(pending(at(60_000)), at(60_000), NOW)).toEqual({ do: 'wait', ms: 60_000 });
    expect(decide(pending(at(5 * 3600_000)), at(5 * 3600_000), NOW)).toEqual({ do: 'wait', ms: MAX_QUEUE_DELAY_MS });
  });

  test('finished, missing, or with nothing scheduled: dropped, saying why', () => {
    expect(decide(undefined, at(0), NOW)).toMatchObject({ do: 'drop', why: expect.stringMatching(/no such delivery/) });
    expect(decide({ status: 'delivered' }, at(0), NOW)).toMatchObject({ do: 'drop', why: 'the delivery is delivered' });
    expect(decide({ status: 'failed' }, at(0), NOW)).toMatchObject({ do: 'drop', why: 'the delivery is failed' });
    expect(decide({ status: 'pending' }, at(0), NOW)).toMatchObject({ do: 'drop' });
  });

  test('a message older than the recorded schedule is stale: dropped, even when due', () => {
    expect(decide(pending(at(-1000)), at(-1001), NOW)).toMatchObject({ do: 'drop', why: 'a later schedule replaced this one' });
    expect(decide(pending(at(60_000)), at(-1000), NOW)).toMatchObject({ do: 'drop' });
  });

  test('a schedule a recovery brought forward sends nothing; the schedule it brought forward does', () => {
    const delivery = pending(at(-10), { superseded: [at(3600_000)] });
    expect(decide(delivery, at(3600_000), NOW)).toMatchObject({ do: 'drop', why: expect.stringMatching(/recovery/) });
    expect(decide(delivery, at(-10), NOW)).toEqual({ do: 'attempt' });
  });

  test('a message ahead of its schedule being recorded looks again shortly, unless long past due', () => {
    expect(decide(pending(at(-60_000)), at(-10), NOW)).toEqual({ do: 'recheck', ms: RECHECK_MS });
    expect(decide(pending(at(-2 * MAX_QUEUE_DELAY_MS)), at(-MAX_QUEUE_DELAY_MS + 1), NOW)).toEqual({ do: 'recheck', ms: RECHECK_MS });
    expect(decide(pending(at(-2 * MAX_QUEUE_DELAY_MS)), at(-MAX_QUEUE_DELAY_MS), NOW)).toMatchObject({
      do: 'drop',
      why: 'its schedule was never recorded',
    });
  });

  test('held by another attempt until later: dropped; a hold that lapsed (its holder crashed) is no hold', () => {
    expect(decide(pending(at(-10), { claimed_until: at(1) }), at(-10), NOW)).toMatchObject({ do: 'drop', why: 'another attempt holds it' });
    expect(decide(pending(at(-10), { claimed_until: at(0) }), at(-10), NOW)).toEqual({ do: 'attempt' });
    expect(decide(pending(at(-10), { claimed_until: at(-1) }), at(-10), NOW)).toEqual({ do: 'attempt' });
  });
});
