import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { checkTable } from '#lib/checker/invariants';
import { writeWebhook } from '#local/sampleWebhooks';
import { db } from '#store/client';
import { DELIVERY_SHARDS, ItemType, keys } from '#store/keys';
import { shardOf as hashShard } from '#store/shards';
import { tableName } from '#store/table';
import { deliveryId, newDelivery } from '#webhooks/deliveries';
import { recoverableSince } from '#webhooks/store/dueDeliveries';
import { SPREAD_AFTER_MS } from '#store/deployWindow';
import { putNewDelivery, readDelivery, recordAttempt } from '#webhooks/store/webhookDeliveries';
import { getDelivery, listDeliveries } from '#webhooks/subscriptions';
import { deliveryItems } from '#support/deliveries';
import { usePrivateTable } from '#support/privateTable';

/**
 * A webhook's deliveries went from one partition to DELIVERY_SHARDS, by a hash of the delivery's id, with nothing
 * moved (webhooks/store/deliveryLayout.ts): what the version before wrote stays in shard 0 and is read there, beside
 * the other shards, and its cursors go on. This version writes as the version before did for 15 minutes after its
 * first delivery on the table, and spreads the deliveries of events from then on (a delivery's id begins with its
 * event's time). A table of this file's own: it starts as one the version before wrote (no layout item).
 */
usePrivateTable(`delivery-shards-${Date.now()}`);

const WS = 'shards-hooks';
const WEBHOOK = 'wh_000000000000000000000001';
const webhook = { id: WEBHOOK, workspace: WS, url: 'https://hooks.example.com/shards' };

/** A delivery of event `n`, its id of the event's time `atMs`. */
const deliveryOf = (n: number, atMs: number) =>
  newDelivery({ ...webhook, events: ['*'] } as never, 'Label Created', `evt-${n}`, deliveryId(atMs, WEBHOOK, `evt-${n}`), {
    type: 'Label Created',
    n,
  });

/** Deliveries as the version before wrote them: shard 0, payload on the item. */
async function writtenBefore(ids: { n: number; at: number }[]) {
  for (const { n, at } of ids) {
    const d = deliveryOf(n, at);
    const Item = { ...keys.webhookDelivery(WS, WEBHOOK, d.id), type: ItemType.webhookDelivery, ...d, status: 'failed' };
    await db.send(new PutCommand({ TableName: tableName(), Item }));
  }
}

const ids = (page: { items: { id: string }[] }) => page.items.map((d) => d.id);

/** Every delivery of the list, page by page from `cursor` on. */
async function follow(limit: number, cursor?: string, status?: 'failed' | 'pending') {
  const seen: string[] = [];
  for (let page = await listDeliveries(WS, WEBHOOK, { limit, cursor }, status); ; ) {
    seen.push(...ids(page));
    if (page.nextCursor === null) return seen;
    page = await listDeliveries(WS, WEBHOOK, { limit, cursor: page.nextCursor }, status);
  }
}

test('deliveries of before are read where they are, cursors minted before go on; new ones spread 15 minutes after the first', async () => {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.deliveriesLayout() }));
  await writeWebhook(webhook);
  const base = Date.now() - 3_600_000;
  await writtenBefore(Array.from({ length: 6 }, (_, k) => ({ n: k + 1, at: base + k })));
  const before = Array.from({ length: 6 }, (_, k) => deliveryOf(k + 1, base + k).id).reverse();
  // A cursor of before: the newest two, then where it goes on.
  const first = await listDeliveries(WS, WEBHOOK, { limit: 2 });
  expect(ids(first)).toEqual(before.slice(0, 2));

  // A reader before the service's layout exists looks in shard 0 (and does not keep that answer: below, it finds spread ones).
  expect((await readDelivery(WS, WEBHOOK, before[0]!))?.id).toBe(before[0]);
  // This version's first deliveries: as the version before wrote them (shard 0), and the service's layout made now.
  const madeAt = Date.now();
  const meanwhile = Array.from({ length: 4 }, (_, k) => deliveryOf(10 + k, madeAt + k));
  for (const d of meanwhile) expect((await putNewDelivery(d)).created).toBe(true);
  const { Item: layout } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.deliveriesLayout(), ConsistentRead: true }));
  expect(Date.parse(layout!.sharded_since)).toBeGreaterThanOrEqual(madeAt - 1_000);
  const spreadAt = Date.parse(layout!.sharded_since) + SPREAD_AFTER_MS;
  // Deliveries of events after the spread (and its minute of clock skew): over every shard, payload and attempts beside each.
  // Six whose ids hash to each shard, in time order (48 taken as they come would leave a shard empty about once in 80 runs).
  const spread: ReturnType<typeof deliveryOf>[] = [];
  const perShard = new Map<number, number>();
  for (let k = 0; spread.length < 6 * DELIVERY_SHARDS; k++) {
    const d = deliveryOf(100 + k, spreadAt + 61_000 + k);
    const n = hashShard(d.id, DELIVERY_SHARDS);
    if ((perShard.get(n) ?? 0) >= 6) continue;
    perShard.set(n, (perShard.get(n) ?? 0) + 1);
    spread.push(d);
  }
  for (const d of spread) expect((await putNewDelivery(d)).created).toBe(true);
  const { Items } = await deliveryItems(WS, WEBHOOK);
  const shardOf = (id: string) => Items.find((i) => i.SK === `DELIVERY#${id}`)!.PK as string;
  for (const d of [...meanwhile]) expect(shardOf(d.id)).toBe(keys.webhookDeliveries(WS, WEBHOOK));
  expect(new Set(spread.map((d) => shardOf(d.id)))).toEqual(new Set(keys.webhookDeliveryShards(WS, WEBHOOK)));
  expect(keys.webhookDeliveryShards(WS, WEBHOOK)).toHaveLength(DELIVERY_SHARDS);

  // A redelivered event makes the same delivery again: found where it is, nothing made twice.
  expect((await putNewDelivery(spread[5]!)).created).toBe(false);
  expect((await putNewDelivery(meanwhile[1]!)).created).toBe(false);
  // Each found by its id; an attempt recorded on a spread one is logged beside it and read back.
  for (const d of [...spread.slice(0, 8), ...meanwhile, deliveryOf(1, base)])
    expect((await readDelivery(WS, WEBHOOK, d.id))?.id).toBe(d.id);
  const target = spread[7]!;
  const at = new Date().toISOString();
  await recordAttempt(target, { status: 'failed', last_attempt_at: at }, ['next_attempt_at'], 'manual', {
    logged: { at, status_code: 500, duration_ms: 3, trigger: 'manual' },
  });
  expect((await getDelivery(WS, WEBHOOK, target.id)).attempt_log).toEqual([{ at, status_code: 500, duration_ms: 3, trigger: 'manual' }]);
  const attempt = (await deliveryItems(WS, WEBHOOK)).Items.find((i) => String(i.SK).startsWith(keys.deliveryAttemptPrefix(target.id)));
  expect(attempt!.PK).toBe(shardOf(target.id));

  // The cursor of before goes on to the oldest; the whole log, newest first, each once, at any page size; by status too.
  const newest = [...meanwhile, ...spread].map((d) => d.id).reverse();
  expect(await follow(3, first.nextCursor!)).toEqual(before.slice(2));
  for (const limit of [1, 7, 100]) expect(await follow(limit)).toEqual([...newest, ...before]);
  // Numbered pages over the merged shards: page 3 of 7 is the 15th to the 21st.
  expect(ids(await listDeliveries(WS, WEBHOOK, { limit: 7, page: 3 }))).toEqual([...newest, ...before].slice(14, 21));
  expect(await follow(5, undefined, 'failed')).toEqual([target.id, ...before]);
  expect(await follow(9, undefined, 'pending')).toEqual(newest.filter((id) => id !== target.id));

  // A recovery's range: oldest first over every shard, each once, call after call.
  const recovered: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await recoverableSince(WS, WEBHOOK, base, {
      limit: 6,
      now: Date.now(),
      // Pending deliveries wait for their first attempt now: not overdue.
      overdueMs: 3_600_000,
      ping: 'Ping',
      ...(after === undefined ? {} : { after }),
    });
    recovered.push(...page.deliveries.map((d) => d.id));
    if (!page.more) break;
    after = page.next;
  }
  expect(recovered).toEqual([...before].reverse().concat(target.id));

  // npm run check:table knows the layout: all of that is where reads find it; a spread delivery put in shard 0 is not.
  expect((await checkTable([WS])).violations).toEqual([]);
  const shard0 = keys.webhookDeliveries(WS, WEBHOOK);
  const stray = spread.find((d) => shardOf(d.id) !== shard0)!;
  const copy = { ...keys.webhookDelivery(WS, WEBHOOK, stray.id), type: ItemType.webhookDelivery, ...stray };
  await db.send(new PutCommand({ TableName: tableName(), Item: copy }));
  expect((await checkTable([WS])).violations).toEqual([
    `webhook_delivery ${shard0} / DELIVERY#${stray.id} is in a shard where reads by its delivery's id look in ${shardOf(stray.id)}`,
  ]);
});
