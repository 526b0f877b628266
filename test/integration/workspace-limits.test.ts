import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { createLabel, deleteLabel } from '#domain/labels';
import { LimitReached } from '#domain/errors';
import { MAX_LABELS_PER_WORKSPACE, MAX_PAGE_DEPTH } from '#domain/limits';
import { MAX_WEBHOOKS_PER_WORKSPACE } from '#webhooks/limits';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { uniqueWorkspace, workspaceClient, type WorkspaceClient } from '#support/api';
import { scanTable } from '#checker/invariants';
import { settledViolations } from '#support/settle';
import { sentDuring } from '#support/history';
import { invokeRoute, principalFor } from '#support/invoke';
import { routeNamed } from '#local/samples';
import { seedLabels } from '#support/labels';

/**
 * Reads have a bound: a page number reaches at most 1,000 items deep, and a workspace holds at most
 * 1,000 labels (its label list answers every one of them), held under concurrent creates too. The
 * labels a test starts from are written straight to the table (seedLabels), as a workspace whose labels
 * were made before they were counted holds them (the first create counts them).
 */

/** Four bytes each in UTF-8: the largest a title of 50 characters can be. */
const WIDE = '\u{1D504}';

// The checker's scans and a test's own read every item of the file's database: the tests that seed a thousand labels
// come last, so that the scans of the others read a few items, not twelve thousand.
describe('page numbers', () => {
  test(`reach at most ${MAX_PAGE_DEPTH} items deep; deeper is a 422 pointing to the cursor`, async () => {
    const c = await workspaceClient('limits');
    expect((await c.get('/projects', { page: '10', per_page: '100' })).status).toBe(200);
    expect((await c.get('/projects', { page: '40', per_page: '25' })).status).toBe(200);
    const deep = await c.get('/projects', { page: '11', per_page: '100' });
    expect(deep.status).toBe(422);
    expect(deep.body.errors).toEqual([
      {
        field: 'page',
        message: `page: "11" reaches past item ${MAX_PAGE_DEPTH} (page x per_page = 1100); page further with the cursor (meta.next_cursor)`,
      },
    ]);
    const labelsDeep = await c.get('/projects-labels/bug/tasks', { project_slug: 'p', page: '1001', per_page: '1' });
    expect(labelsDeep.status).toBe(422);
  });
});

describe('a count new to the instance', () => {
  // A guess there would be a transaction written in vain (and charged): on a busy partition, one that takes the units the
  // create's own next try needs (store/workspaceCounts.ts).
  test("is read first, not guessed: a workspace's first label and first webhook are each one transaction; the next create, on the same instance, reads no count", async () => {
    const ws = uniqueWorkspace('limits');
    const principal = principalFor(ws);
    vi.stubEnv('WEBHOOKS_ALLOW_PRIVATE_TARGETS', 'true');
    onTestFinished(() => void vi.unstubAllEnvs());
    const send = (name: string, body: unknown) => {
      const route = routeNamed(name);
      return sentDuring(() => invokeRoute(route, { path: route.path, query: { company_slug: ws }, body, expectedStatus: 201 }, principal));
    };
    const transactions = (s: { commands: string[] }) => s.commands.filter((c) => c === 'TransactWriteItemsCommand').length;
    // Reads of the count, wherever the workspace keeps it (store/labelTally.ts).
    const countKeys = [keys.labelCount(ws), keys.labelCountOwn(ws), keys.webhookCount(ws)].map((k) => `${k.PK} ${k.SK}`);
    const reads = (s: { inputs: { command: string; input: Record<string, unknown> }[] }) =>
      s.inputs.filter(({ command, input }) => {
        const key = input.Key as { PK: string; SK: string } | undefined;
        return command === 'GetItemCommand' && key !== undefined && countKeys.includes(`${key.PK} ${key.SK}`);
      }).length;
    for (const [name, body] of [
      ['create-label', (i: number) => ({ title: `Label ${i}`, color: '00FF00' })],
      // Loopback (nothing to resolve), for an event this workspace never has: nothing is delivered.
      ['create-webhook', (i: number) => ({ url: `http://127.0.0.1:9/hook-${i}`, events: ['project.deleted'] })],
    ] as const) {
      const first = await send(name, body(1));
      expect(first.result.statusCode, first.result.body).toBe(201);
      expect(transactions(first), name).toBe(1);
      const next = await send(name, body(2));
      expect(next.result.statusCode, next.result.body).toBe(201);
      expect(transactions(next), name).toBe(1);
      expect(reads(first), name).toBeGreaterThan(0);
      expect(reads(next), name).toBe(0);
    }
    const counts = (await scanTable([ws])).filter((i) => i.type === ItemType.labelCount || i.type === ItemType.webhookCount);
    expect(counts.map((i) => [i.type, i.count]).sort()).toEqual(
      [
        [ItemType.labelCount, 2],
        [ItemType.webhookCount, 2],
      ].sort(),
    );
  });
});

describe('webhooks per workspace', () => {
  const hook = (c: WorkspaceClient, i: number | string) =>
    c.post('/webhooks', { url: `https://hooks.example.com/${i}`, events: ['*'], description: `hook ${i}` });

  test(`a workspace holds at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks, its first count raced: concurrent creates at the limit get in exactly as many as there is room for, one more is a 422 naming the limit, and a delete makes room`, async () => {
    const c = await workspaceClient('limits');
    // Every create of the first ten finds no count kept (the first count races the others').
    const first = await Promise.all(Array.from({ length: 10 }, (_, i) => hook(c, i)));
    expect(first.map((r) => r.status)).toEqual(Array(10).fill(201));
    for (let i = 10; i < MAX_WEBHOOKS_PER_WORKSPACE - 2; i++) expect((await hook(c, i)).status).toBe(201);
    const atLimit = await Promise.all(Array.from({ length: 5 }, (_, i) => hook(c, `last-${i}`)));
    expect(atLimit.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422]);
    const refused = await hook(c, 'over');
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: 'url', message: `url cannot be added: a workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first` },
    ]);
    const ids = (await c.get('/webhooks', { limit: '100' })).body.data.map((w: { id: string }) => w.id);
    expect(ids).toHaveLength(MAX_WEBHOOKS_PER_WORKSPACE);
    expect((await c.del(`/webhooks/${ids[0]}`)).status).toBe(200);
    expect((await hook(c, 'room')).status).toBe(201);
    // A delete and two creates race: one create gets the room the delete makes, or none does if it comes first.
    const raced = await Promise.all([c.del(`/webhooks/${ids[1]}`), hook(c, 'race-1'), hook(c, 'race-2')]);
    expect(raced[0]!.status).toBe(200);
    const held = (await c.get('/webhooks', { limit: '100' })).body.data.length;
    expect(held).toBe(MAX_WEBHOOKS_PER_WORKSPACE - 1 + raced.slice(1).filter((r) => r.status === 201).length);
    expect(held).toBeLessThanOrEqual(MAX_WEBHOOKS_PER_WORKSPACE);
    const count = (await scanTable([c.ws])).find((i) => i.type === ItemType.webhookCount);
    expect(count?.count).toBe(held);
    expect(await settledViolations([c.ws])).toEqual([]);
  });
});

describe('labels per workspace', () => {
  test('concurrent first creates in a new workspace (no count kept yet: each reads none, one starts it, the others lose that race and read again) take the ids 1 to n, none twice and none lost', async () => {
    const c = await workspaceClient('limits');
    const made = await Promise.all(['One', 'Two', 'Three'].map((title) => c.post('/projects-labels', { title, color: '00FF00' })));
    expect(made.map((m) => m.status)).toEqual([201, 201, 201]);
    expect(made.map((m) => m.body.data.id as number).sort((x, y) => x - y)).toEqual([1, 2, 3]);
    expect((await c.post('/projects-labels', { title: 'Four', color: '00FF00' })).body.data.id).toBe(4);
    const count = (await scanTable([c.ws])).find((i) => i.type === ItemType.labelCount);
    expect(count?.count).toBe(4);
  });
  test('a full workspace tried again and again: the first refusal tries a transaction (its guess) and takes an id; each later one, on the same instance, reads the count alone and takes none', async () => {
    const ws = uniqueWorkspace('limits');
    const actor = { name: 'Limits', username: 'limits' };
    const only = await createLabel(ws, { title: 'Only', color: '00FF00' }, actor);
    const itemOf = async (type: string) => (await scanTable([ws])).find((i) => i.type === type)!;
    const count = await itemOf(ItemType.labelCount);
    // Full as far as the count says (a thousand labels are the last test's to make).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: count.PK, SK: count.SK },
        UpdateExpression: 'SET #count = :max',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':max': MAX_LABELS_PER_WORKSPACE },
      }),
    );
    const over = () => createLabel(ws, { title: 'Over', color: '00FF00' }, actor).catch((error: unknown) => error);
    const first = await sentDuring(over);
    expect(first.result).toBeInstanceOf(LimitReached);
    expect(first.commands).toContain('TransactWriteItemsCommand');
    const idAfterFirst = (await itemOf(ItemType.labelIdCounter)).next_id;
    expect(idAfterFirst).toBe(only.id + 1);
    for (let i = 0; i < 3; i++) {
      const again = await sentDuring(over);
      expect(again.result).toBeInstanceOf(LimitReached);
      expect(again.commands).toEqual(['GetItemCommand']);
    }
    expect((await itemOf(ItemType.labelIdCounter)).next_id).toBe(idAfterFirst);
    // Room again: the next create reads, finds it, and is made; the one after goes back to guessing.
    await deleteLabel(ws, only.slug, actor);
    const made = await sentDuring(() => createLabel(ws, { title: 'Room', color: '00FF00' }, actor));
    expect(made.commands.filter((c) => c === 'GetItemCommand')).toHaveLength(1);
    const next = await sentDuring(() => createLabel(ws, { title: 'Guessed', color: '00FF00' }, actor).catch((error: unknown) => error));
    expect(next.result).toBeInstanceOf(LimitReached);
    expect(next.commands).toContain('TransactWriteItemsCommand');
  });
  test('counting starts right whatever comes first in a workspace of labels made before counts: a delete racing creates', async () => {
    const c = await workspaceClient('limits');
    await seedLabels(c.ws, 10);
    const raced = await Promise.all([
      c.del('/projects-labels/seeded-3'),
      c.post('/projects-labels', { title: 'New 1', color: '00FF00' }),
      c.del('/projects-labels/seeded-4'),
      c.post('/projects-labels', { title: 'New 2', color: '00FF00' }),
    ]);
    expect(raced.map((r) => r.status)).toEqual([200, 201, 200, 201]);
    // The checker holds the count to the labels there are (lib/checker/counts.ts).
    expect(await settledViolations([c.ws])).toEqual([]);
    const count = (await scanTable([c.ws])).find((i) => i.type === ItemType.labelCount);
    expect(count?.count).toBe(10);
  });

  test('a workspace over the limit since before it gets its count kept at its first refused create', async () => {
    const c = await workspaceClient('limits');
    // Nothing here reads a label (a create counts the items): their copies are left out, to keep the seed small.
    await seedLabels(c.ws, MAX_LABELS_PER_WORKSPACE + 1, undefined, false);
    expect((await c.post('/projects-labels', { title: 'Over', color: '00FF00' })).status).toBe(422);
    const count = (await scanTable([c.ws])).find((i) => i.type === ItemType.labelCount);
    expect(count?.count).toBe(MAX_LABELS_PER_WORKSPACE + 1);
    expect((await c.post('/projects-labels', { title: 'Over again', color: '00FF00' })).status).toBe(422);
  });
  // One workspace seeded at the limit serves what two tests checked: seeding 1,000 labels (each with its copies) is most
  // of the file's time.
  test(`a workspace holds at most ${MAX_LABELS_PER_WORKSPACE} labels, every title as wide as titles get: concurrent creates at the limit get in exactly as many as there is room for, its list stays far under Lambda's 6 MB answer, one more is a 422 naming the limit, and a delete makes room`, async () => {
    const c = await workspaceClient('limits');
    const wide = (tail: string) => `${WIDE.repeat(45)}${tail.padStart(5, '0')}`;
    await seedLabels(c.ws, MAX_LABELS_PER_WORKSPACE - 2, (i) => wide(String(i)));
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => c.post('/projects-labels', { title: wide(`R${i}`), color: '00FF00' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    const list = await c.get('/projects-labels');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(MAX_LABELS_PER_WORKSPACE);
    const bytes = Buffer.byteLength(list.text);
    expect(bytes).toBeGreaterThan(MAX_LABELS_PER_WORKSPACE * 180);
    expect(bytes).toBeLessThan(600_000);
    const refused = await c.post('/projects-labels', { title: 'One too many', color: '00FF00' });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([
      {
        field: 'title',
        message: `title cannot be added: the workspace holds ${MAX_LABELS_PER_WORKSPACE} labels, its limit; delete one first`,
      },
    ]);
    expect((await c.get('/projects-labels')).body.data).toHaveLength(MAX_LABELS_PER_WORKSPACE);
    expect((await c.del('/projects-labels/seeded-1')).status).toBe(200);
    const made = await c.post('/projects-labels', { title: 'Room again', color: '00FF00' });
    expect(made.status, made.text).toBe(201);
    expect((await c.post('/projects-labels', { title: 'And one more', color: '00FF00' })).status).toBe(422);
    // Counted from here on: a delete and two creates race too, and the count stays exact.
    const raced = await Promise.all([
      c.del('/projects-labels/seeded-2'),
      c.post('/projects-labels', { title: 'After 1', color: '00FF00' }),
      c.post('/projects-labels', { title: 'After 2', color: '00FF00' }),
    ]);
    expect(raced[0]!.status).toBe(200);
    expect((await c.get('/projects-labels')).body.data.length).toBeLessThanOrEqual(MAX_LABELS_PER_WORKSPACE);
    expect(await settledViolations([c.ws])).toEqual([]);
  });
});
