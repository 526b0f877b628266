import { expect, test } from 'vitest';
import { listActivity } from '#domain/activityReads';
import { appendActivity } from '#store/activityLog';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { uniqueWorkspace } from '#support/api';
import { attachedEntry } from '#support/history';

/**
 * A follower's first read of a workspace that has recorded nothing yet races its first entries. The
 * workspace has no position to read to, so nothing bounds the read: entry 1 (shard 1) and entry 2
 * (shard 2) are recorded in turn while the read is between its shards, shard 1 read before and shard 2
 * after. Answering entry 2 with a token past it would lose entry 1 to this follower for good. In process
 * against the suite's DynamoDB Local, the interleaving forced by a middleware on the shared client.
 */
test("a first read racing the workspace's first entries answers none past one it has not seen, and the token goes on to both", async () => {
  const ws = uniqueWorkspace('first');
  const [first, second] = [1, 2].map((n) =>
    attachedEntry(ws, n, new Date().toISOString(), { projectSlug: 'p', projectId: 'prj_first', task: 't-1', eventId: `evt-${n}` }),
  );
  const shards = keys.activityShards(ws);
  const names = (input: unknown, pk: string) => JSON.stringify(input).includes(JSON.stringify(pk));
  let recorded: Promise<void> | undefined;
  let release!: () => void;
  const written = new Promise<void>((resolve) => {
    release = resolve;
  });
  const name = `firstEntries${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'QueryCommand' || !shards.some((pk) => names(args.input, pk))) return next(args);
      if (recorded === undefined && names(args.input, shards[1]!)) {
        // Shard 1 is read before entry 1 is there; then entries 1 and 2 are recorded, each in its transaction.
        const out = await next(args);
        recorded = (async () => {
          expect(await appendActivity([first!], 86_400_000)).toBe(1);
          expect(await appendActivity([second!], 86_400_000)).toBe(1);
        })();
        await recorded;
        release();
        return out;
      }
      // Every other shard is read after both.
      await written;
      return next(args);
    },
    { step: 'initialize', name },
  );
  const asc = { context: 'company', order: 'asc' } as const;
  let page: Awaited<ReturnType<typeof listActivity>>;
  try {
    page = await listActivity(ws, asc, { limit: 10 });
  } finally {
    db.middlewareStack.remove(name);
  }
  // The race happened as drawn.
  expect(recorded).toBeDefined();
  const seen = page.items.map((e) => e.event_id);
  for (let token = page.nextCursor!; ; ) {
    const next = await listActivity(ws, asc, { limit: 10, cursor: token });
    if (next.items.length === 0) break;
    seen.push(...next.items.map((e) => e.event_id));
    token = next.nextCursor!;
  }
  expect(seen).toEqual(['evt-1', 'evt-2']);
});
