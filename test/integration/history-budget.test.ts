import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { db } from '#store/client';
import { HISTORY_READ_UNITS, readHistory } from '#store/activity';
import { chunk } from '#store/batches';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { uniqueWorkspace } from '#support/api';

/**
 * A filtered history page reads within its budget (functions/commons/store/activity.ts): a type that few
 * entries have, among many large ones, is answered in short pages with a cursor, each page reading at
 * most its read units and one more round, not the 16 calls (16 MB) the page's call bound alone allows.
 * In process against the suite's DynamoDB Local, the entries written as the stream processor writes them.
 */
const SHARDS = 4;
const PER_SHARD = 150;
/** A changed description's worth of entry: 600 of them are 7 MB. */
const ENTRY_BYTES = 12_000;

test('a page of a type none of 7 MB of entries has reads its budget and one round at most, and its cursor goes on to the end', async () => {
  const ws = uniqueWorkspace('budget');
  const now = Date.now();
  const items = Array.from({ length: SHARDS * PER_SHARD }, (_, i) => {
    const at = new Date(now - 3_600_000 + i).toISOString();
    return {
      ...keys.activity(ws, i % SHARDS, keys.activitySortKey(at, `evt-${i}`)),
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
      partitions: Array.from({ length: SHARDS }, (_, n) => keys.activityShard(ws, n)),
      lo: keys.activityTimeKey(new Date(now - 7_200_000).toISOString()),
      hi: keys.activityTimeKey('~'),
      descending: true,
      now,
      types: ['Label Created'],
    };
    const perPage: number[] = [];
    let after: string | undefined;
    do {
      units = 0;
      const page = await readHistory(range, 10, after);
      expect(page.entries).toEqual([]);
      perPage.push(units);
      after = page.next;
    } while (after !== undefined && perPage.length < 50);
    expect(after).toBeUndefined();
    // 7 MB is about 900 units eventually consistent: more than one page's budget, so more than one page.
    expect(perPage.length).toBeGreaterThan(1);
    // A round is a call per shard of 1 MB at most (128 units): a page stops once its reads reach the budget.
    for (const read of perPage) expect(read).toBeLessThanOrEqual(HISTORY_READ_UNITS + SHARDS * 140);
    console.log(`history read budget: ${perPage.length} pages, units per page ${perPage.map((u) => Math.round(u)).join(', ')}`);
  } finally {
    db.middlewareStack.remove(name);
  }
});
