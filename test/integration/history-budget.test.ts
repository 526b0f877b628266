import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { HISTORY_PAGE_BYTES, listActivity } from '#domain/activityReads';
import { db } from '#store/client';
import { HISTORY_READ_UNITS, readHistory } from '#store/activity';
import { chunk } from '#store/batches';
import { ACTIVITY_SHARDS, keys } from '#store/keys';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';

/**
 * A filtered history page reads within its budget (functions/commons/store/activity.ts): a type that few
 * entries have, among many large ones, is answered in short pages with a cursor, each page reading at
 * most its read units and one more round, not the 16 calls (16 MB) the page's call bound alone allows.
 * In process against the suite's DynamoDB Local, the entries written as the stream processor writes them.
 */
const SHARDS = ACTIVITY_SHARDS;
const PER_SHARD = 600 / SHARDS;
/** A changed description's worth of entry: 600 of them are 7 MB. */
const ENTRY_BYTES = 12_000;

test('a page of a type none of 7 MB of entries has reads its budget and one round at most, and its cursor goes on to the end', async () => {
  const ws = uniqueWorkspace('budget');
  const now = Date.now();
  const items = Array.from({ length: SHARDS * PER_SHARD }, (_, i) => {
    const at = new Date(now - 3_600_000 + i).toISOString();
    return {
      PK: keys.activityShards(ws)[i % SHARDS]!,
      SK: keys.activitySortKey(at, i + 1),
      expires_at: now + 86_400_000,
      entry: { id: `evt-${i}`, type: 'Project Updated', occurred_at: at, data: { description: 'd'.repeat(ENTRY_BYTES) } },
    };
  });
  for (const part of chunk(items, 25))
    await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: part.map((Item) => ({ PutRequest: { Item } })) } }));

  // What each page read, as DynamoDB Local reports it.
  let units = 0;
  const name = `historyUnits${Math.random()}`;
  db.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      units += (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits ?? 0;
      return out;
    },
    { step: 'initialize', name },
  );
  try {
    const range = {
      partitions: keys.activityShards(ws),
      lo: keys.activityTimeKey(new Date(now - 7_200_000).toISOString()),
      hi: keys.activityTimeKey('~'),
      descending: true,
      now,
      types: ['Label Created'],
    };
    // A small page and the largest: a round's items are shared by the shards, whatever the page's size.
    for (const limit of [10, 100]) {
      const perPage: number[] = [];
      let after: string | undefined;
      do {
        units = 0;
        const page = await readHistory(range, limit, after);
        expect(page.entries).toEqual([]);
        perPage.push(units);
        after = page.next;
      } while (after !== undefined && perPage.length < 50);
      expect(after).toBeUndefined();
      // 7 MB is about 900 units eventually consistent: more than one page's budget, so more than one page.
      expect(perPage.length).toBeGreaterThan(1);
      // A round reads about 4 MB at most (512 units), however many shards: a page stops once its reads reach the budget.
      for (const read of perPage) expect(read).toBeLessThanOrEqual(HISTORY_READ_UNITS + 4 * 140);
      console.log(
        `history read budget, limit ${limit}: ${perPage.length} pages, units per page ${perPage.map((u) => Math.round(u)).join(', ')}`,
      );
    }
  } finally {
    db.middlewareStack.remove(name);
  }
});

test('entries kept whole before texts were cut (40 KB each) page within the byte bound, and a numbered page that would cut is refused', async () => {
  const ws = uniqueWorkspace('legacy');
  const now = Date.now();
  const items = Array.from({ length: 60 }, (_, i) => {
    const at = new Date(now - 60_000 + i).toISOString();
    const entry = {
      id: `act_${String(i).padStart(24, '0')}`,
      type: 'Project Updated',
      occurred_at: at,
      actor: null,
      company_slug: ws,
      project_slug: 'p',
      project: { slug: 'p', name: 'P' },
      label: null,
      task_uuid: null,
      changes: [{ field: 'description', from: '', to: 'd'.repeat(40_000) }],
      event_id: `evt-${i}`,
      request_id: null,
      idempotency_key: null,
    };
    return {
      PK: keys.activityShards(ws)[i % SHARDS]!,
      SK: keys.legacyActivitySortKey(at, `evt-${i}`),
      expires_at: now + 86_400_000,
      entry,
    };
  });
  for (const part of chunk(items, 25))
    await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: part.map((Item) => ({ PutRequest: { Item } })) } }));
  const query = { context: 'company', order: 'asc' } as const;
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await listActivity(ws, query, { limit: 100, cursor });
    if (page.items.length === 0) break;
    pages++;
    expect(Buffer.byteLength(JSON.stringify(page.items))).toBeLessThanOrEqual(HISTORY_PAGE_BYTES);
    // As they were kept: no place of their own, readable since they happened.
    expect(page.items.every((e) => e.sequence === null && e.recorded_at === e.occurred_at)).toBe(true);
    seen.push(...page.items.map((e) => e.event_id));
    cursor = page.nextCursor!;
  }
  // About 24 of them fit a page: 60 take three, each read once, in order.
  expect(pages).toBe(3);
  expect(seen).toEqual(items.map((i) => i.entry.event_id));
  // A numbered page would leave what it cuts to no page: refused, naming the way on.
  await expect(listActivity(ws, { ...query, order: 'desc' }, { limit: 100, page: 1 })).rejects.toThrow(/follow meta.next_cursor/);
});
