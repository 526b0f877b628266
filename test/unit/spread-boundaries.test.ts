import { describe, expect, test } from 'vitest';
import { layoutAt } from '#store/activityLayout';
import { CLOCK_SKEW_MS, SPREAD_AFTER_MS } from '#store/deployWindow';
import { DELIVERY_SHARDS, keys, LABEL_LINK_SHARDS } from '#store/keys';
import { labelLinkShard, labelShardOf } from '#store/labelLinkLayout';
import { shardOf } from '#store/shards';
import { deliveryShard } from '#webhooks/store/deliveryLayout';

/**
 * Where each layout that spreads a key turns (store/deployWindow.ts): the millisecond before it writes as the version
 * before, the millisecond it turns spreads, and a layout not yet made spreads nothing. The integration tests write
 * either side of it a minute or more away; these hold the edge itself.
 */
const SINCE = '2026-06-01T12:00:00.000Z';
const spreadAt = Date.parse(SINCE) + SPREAD_AFTER_MS;

describe('the edges of the spreads', () => {
  test("a delivery's shard: the edge is its event's time, a minute of clock skew after the spread began", () => {
    // Ids whose hash is not shard 0, so the edge shows.
    const id = (at: number) => {
      for (let k = 0; ; k++) {
        const candidate = `${keys.deliveryIdPrefix(at)}${String(k).padStart(20, '0')}`;
        if (shardOf(candidate, DELIVERY_SHARDS) !== 0) return candidate;
      }
    };
    const edge = spreadAt + CLOCK_SKEW_MS;
    expect(deliveryShard(id(edge - 1), spreadAt)).toBe(0);
    expect(deliveryShard(id(edge), spreadAt)).toBe(shardOf(id(edge), DELIVERY_SHARDS));
    expect(deliveryShard(id(edge), spreadAt)).not.toBe(0);
    // Before any function of this version made a delivery: nothing spreads; an id of another shape never does.
    expect(deliveryShard(id(edge + 86_400_000), Number.POSITIVE_INFINITY)).toBe(0);
    expect(deliveryShard('not-a-delivery-id', spreadAt)).toBe(0);
  });

  test("a link's label side: the edge is the attach's own time, the spread's start", () => {
    const task = ['t-0', 't-1', 't-2', 't-3'].find((t) => shardOf(t, LABEL_LINK_SHARDS) !== 0)!;
    expect(labelLinkShard(task, spreadAt, spreadAt - 1)).toBe(0);
    expect(labelLinkShard(task, spreadAt, spreadAt)).toBe(shardOf(task, LABEL_LINK_SHARDS));
    expect(labelLinkShard(task, spreadAt, spreadAt)).not.toBe(0);
    // The task side names it; a link of before names none, and is in shard 0.
    expect(labelShardOf({ label_shard: 5 })).toBe(5);
    expect(labelShardOf({})).toBe(0);
    expect(() => labelShardOf({ label_shard: '5' })).toThrow();
  });

  test("a history entry: the edge is its recording's time, the spread's start", () => {
    expect(layoutAt(new Date(spreadAt - 1).toISOString(), SINCE, false).spread).toBe(false);
    expect(layoutAt(new Date(spreadAt).toISOString(), SINCE, false).spread).toBe(true);
    expect(layoutAt(new Date(spreadAt).toISOString(), SINCE, false).spreadAt).toBe(spreadAt);
  });
});
