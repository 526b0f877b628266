import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect, test } from 'vitest';
import { appendActivity } from '#store/activityLog';
import type { NewEntry } from '#store/activityLayout';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { scanTable } from '#lib/checker/invariants';
import { attachedEntry, sentDuring } from '#support/history';
import { usePrivateTable } from '#support/privateTable';

/**
 * The history's 15 minutes (activityLayout.ts) begin when this version first writes a history on the table, not per
 * workspace: on a table the version before wrote (the service's LAYOUT item missing, as after a deploy), every
 * workspace written in the 15 minutes after, new to the history or not, is written where that version reads, and
 * keeps that time in its own LAYOUT. A table of this file's own: the test removes what a table made new has.
 */
usePrivateTable(`history-window-${Date.now()}`);

const RETENTION_MS = 86_400_000;

const entryOf = (ws: string, n: number, occurredAt: string): NewEntry =>
  attachedEntry(ws, n, occurredAt, { projectSlug: 'window', projectId: 'prj_window', task: 'task-1', eventId: `evt-${ws}-${n}` });

const sharded = async (ws: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.activityLayout(ws), ConsistentRead: true }))).Item?.sharded_since;

test("on a table the version before wrote, every workspace is written as before for 15 minutes from this version's first write", async () => {
  const service = keys.serviceActivityLayout();
  // A table made new has the service's layout as of long ago; one the version before wrote has none.
  const made = await db.send(new GetCommand({ TableName: tableName(), Key: service, ConsistentRead: true }));
  expect(made.Item?.sharded_since).toBe(new Date(0).toISOString());
  await db.send(new DeleteCommand({ TableName: tableName(), Key: service }));

  const first = 'window-first';
  const second = 'window-second';
  const old = new Date(Date.now() - 3_600_000).toISOString();
  const began = Date.now();
  // Two workspaces, concurrently: the first write of each makes (or finds) the service's layout.
  const { result, parts } = await sentDuring(() =>
    Promise.all(
      [first, second].map((ws) =>
        appendActivity(
          Array.from({ length: 8 }, (_, k) => entryOf(ws, k + 1, old)),
          RETENTION_MS,
        ),
      ),
    ),
  );
  expect(result).toEqual([8, 8]);
  // Not spread: no mark of before to look for, and every entry where the version before reads.
  expect(parts).toContain('Put');
  expect(parts).not.toContain('ConditionCheck');
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: service, ConsistentRead: true }));
  const since = Item?.sharded_since as string;
  expect(Date.parse(since)).toBeGreaterThanOrEqual(began - 1_000);
  for (const ws of [first, second]) {
    expect(await sharded(ws)).toBe(since);
    const before = [
      ...keys.activityShards(ws).slice(0, 4),
      keys.projectActivityPartitions(ws, 'prj_window')[0],
      keys.taskActivityPartitions(ws, 'task-1')[0],
    ];
    const used = new Set((await scanTable([ws])).filter((i) => i.type === 'activity').map((i) => i.PK as string));
    expect(used.size).toBeGreaterThan(0);
    expect([...used].every((pk) => before.includes(pk))).toBe(true);
  }
});
