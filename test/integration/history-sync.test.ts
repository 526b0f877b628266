import { describe, expect, test } from 'vitest';
import { call, workspaceClient, type WorkspaceClient } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * The history as a syncing program reads it (docs/api.md, "Syncing from the history"): oldest first,
 * calling again with the token it was last given, it sees every entry of its query once, whatever the
 * stream's lag and the order concurrent writers commit in, across restarts from a stored token; and the
 * order of entries is the order of the data's changes, so every field's `from` is the previous `to`.
 */
interface Entry {
  id: string;
  type: string;
  sequence: number;
  project_slug: string | null;
  changes: { field: string; from: unknown; to: unknown }[];
}

/** One call of a follower: the entries after `token` and the token to call again with (never null oldest first). */
async function poll(c: WorkspaceClient, params: Record<string, string>, token: string | undefined) {
  const res = await c.get('/activities', {
    from_context: 'company',
    order: 'asc',
    limit: '7',
    ...params,
    ...(token ? { cursor: token } : {}),
  });
  expect(res.status).toBe(200);
  expect(res.body.meta.next_cursor).toEqual(expect.any(String));
  return { entries: res.body.data as Entry[], token: res.body.meta.next_cursor as string };
}

/** Everything of the query, from the start, once the stream has caught up. */
async function everything(c: WorkspaceClient, params: Record<string, string> = {}): Promise<Entry[]> {
  await streamDrained();
  const all: Entry[] = [];
  for (let token: string | undefined, page; (page = await poll(c, params, token)).entries.length > 0; token = page.token)
    all.push(...page.entries);
  return all;
}

describe('a follower', () => {
  test('through bursts of concurrent writes and restarts from a stored token, sees every entry once, in the order they became readable', async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Busy');
    await c.createLabel('Flaky', 'AAAAAA');
    const seen: Entry[] = [];
    // What a follower keeps: the last token it was given (a restart goes on from it).
    let stored: string | undefined;
    let writing = true;
    let polls = 0;
    const follower = (async () => {
      // Three followers in turn, each started afresh from the stored token, as a process restarts.
      for (let life = 0; writing || life < 4; life++) {
        let token = stored;
        for (let i = 0; i < 6; i++) {
          const page = await poll(c, {}, token);
          polls++;
          seen.push(...page.entries);
          token = page.token;
          stored = token;
        }
        if (!writing) break;
      }
    })();
    for (let burst = 0; burst < 3; burst++) {
      await Promise.all([
        ...Array.from({ length: 25 }, (_, i) => c.put('/projects/busy', { description: `burst ${burst} write ${i}` })),
        ...Array.from({ length: 5 }, (_, i) =>
          c.post('/projects-labels/flaky/attach', { task_uuid: `task-${burst}-${i}` }, { project_slug: 'busy' }),
        ),
      ]);
    }
    writing = false;
    await follower;
    // Caught up after the stream: the follower's last token answers the rest, and then nothing.
    await streamDrained();
    for (let page = await poll(c, {}, stored); page.entries.length > 0; page = await poll(c, {}, page.token)) seen.push(...page.entries);
    const all = await everything(c);
    // 1 create, 1 label, 75 updates, 15 attaches.
    expect(all).toHaveLength(92);
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    // Places 1, 2, 3...: none skipped, none twice.
    expect(seen.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
    console.log(
      `history sync: a follower polling through 3 bursts (${polls} polls) saw ${seen.length} of ${all.length} entries, none twice`,
    );
  });

  test("40 concurrent updates of one project: each description's from is the previous to, and the last to is what GET answers", async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Chain');
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => c.put('/projects/chain', { description: `v${i + 1}` })));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const entries = (await everything(c, { from_context: 'project', project_slug: 'chain' })).filter((e) => e.type === 'Project Updated');
    // An update that wrote what was already there changes nothing and has no entry; every other one does.
    expect(entries.length).toBeGreaterThanOrEqual(39);
    const chain = entries.map((e) => e.changes.find((ch) => ch.field === 'description')!);
    let breaks = 0;
    chain.forEach((ch, i) => {
      if (ch.from !== (i === 0 ? '' : chain[i - 1]!.to)) breaks++;
    });
    expect(breaks).toBe(0);
    const now = await c.get('/projects/chain');
    expect(chain.at(-1)!.to).toBe(now.body.data.description);
  });

  test('attach, detach and set entries name the label as it was then, renamed and recoloured right after (before the stream gets there)', async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Board');
    await c.createLabel('Flaky0', '000000');
    for (let i = 0; i < 5; i++) {
      await c.post('/projects-labels/flaky0/attach', { task_uuid: `t-${i}` }, { project_slug: 'board' });
      await c.put('/projects-labels/flaky0', { title: `Flaky${i + 1}`, color: `00000${i + 1}` });
      await c.del('/projects-labels/flaky0/detach', undefined, { project_slug: 'board', task_uuid: `t-${i}` });
      await c.put('/projects-labels/flaky0', { title: `Flaky${i + 1}b` });
    }
    await c.post('/projects-labels/flaky0/attach', undefined, { project_slug: 'board' });
    await c.put('/projects-labels/flaky0', { title: 'Renamed after the set' });
    type Labelled = Entry & { task_uuid: string | null; label: { title: string; color: string } };
    const entries = (await everything(c)) as Labelled[];
    const titles = (type: string) => entries.filter((e) => e.type === type).map((e) => [e.task_uuid, e.label.title, e.label.color]);
    expect(titles('Label Attached')).toEqual([
      ...Array.from({ length: 5 }, (_, i) => [`t-${i}`, i === 0 ? 'Flaky0' : `Flaky${i}b`, `00000${i}`]),
      [null, 'Flaky5b', '000005'],
    ]);
    expect(titles('Label Detached')).toEqual(Array.from({ length: 5 }, (_, i) => [`t-${i}`, `Flaky${i + 1}`, `00000${i + 1}`]));
  });

  test("a label's delete leaves the detaches it caused in each task's and project's history, by the deleter, naming the label as it was", async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Alpha');
    await c.createProject('Beta');
    await c.createLabel('Doomed', 'AA0000');
    await c.post('/projects-labels/doomed/attach', { task_uuids: ['t-1', 't-2'] }, { project_slug: 'alpha' });
    await c.post('/projects-labels/doomed/attach', undefined, { project_slug: 'beta' });
    const deleted = await c.del('/projects-labels/doomed');
    expect(deleted.status).toBe(200);
    const detaches = (params: Record<string, string>) =>
      everything(c, params).then((all) =>
        (all as (Entry & { task_uuid: string | null; label: { title: string }; request_id: string })[])
          .filter((e) => e.type === 'Label Detached')
          .map((e) => [e.project_slug, e.task_uuid, e.label.title, e.request_id]),
      );
    const by = deleted.headers.get('x-request-id');
    expect((await detaches({ uuid: 't-1' })).map((d) => d.slice(0, 3))).toEqual([['alpha', 't-1', 'Doomed']]);
    expect((await detaches({ from_context: 'project', project_slug: 'alpha' })).sort()).toEqual([
      ['alpha', 't-1', 'Doomed', by],
      ['alpha', 't-2', 'Doomed', by],
    ]);
    expect(await detaches({ from_context: 'project', project_slug: 'beta' })).toEqual([['beta', null, 'Doomed', by]]);
    // And the workspace's history: the delete, then the three detaches it caused, once each.
    const all = await everything(c);
    expect(all.slice(-4).map((e) => e.type)).toEqual(['Label Deleted', 'Label Detached', 'Label Detached', 'Label Detached']);
  });

  test("a slug taken again answers the new project's history; the old one's stays readable by its id", async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Phoenix');
    await c.put('/projects/phoenix', { description: 'first life' });
    await c.createLabel('Ash', '333333');
    await c.post('/projects-labels/ash/attach', { task_uuid: 't-1' }, { project_slug: 'phoenix' });
    await c.del('/projects/phoenix');
    await c.createProject('Phoenix');
    await c.put('/projects/phoenix', { description: 'second life' });
    type Owned = Entry & { project_id: string | null };
    const slugRead = (await everything(c, { from_context: 'project', project_slug: 'phoenix' })) as Owned[];
    expect(slugRead.map((e) => e.type)).toEqual(['Project Created', 'Project Updated']);
    const all = (await everything(c)) as Owned[];
    const [first, second] = [...new Set(all.filter((e) => e.project_id !== null).map((e) => e.project_id))];
    expect(slugRead.every((e) => e.project_id === second)).toBe(true);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    const old = (await everything(c, { from_context: 'project', project_slug: 'phoenix', project_id: first! })) as Owned[];
    expect(old.map((e) => e.type)).toEqual(['Project Created', 'Project Updated', 'Label Attached', 'Project Deleted']);
    expect(old.every((e) => e.project_id === first)).toBe(true);
    // The label's entries carry no project; an id names one project only in its own context; an unknown id is a 404.
    expect(all.find((e) => e.type === 'Label Created')!.project_id).toBeNull();
    expect((await c.get('/activities', { from_context: 'company', project_id: first! })).status).toBe(422);
    const unknown = await c.get('/activities', {
      from_context: 'project',
      project_slug: 'phoenix',
      project_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
  });

  test('tails: caught up, the same token again (a 304 with If-None-Match); a new entry after it once', async () => {
    const c = await workspaceClient('sync');
    await c.createProject('Tail');
    const first = await everything(c);
    expect(first.map((e) => e.type)).toEqual(['Project Created']);
    const caughtUp = await poll(c, {}, undefined).then(async (p) => (p.entries.length > 0 ? poll(c, {}, p.token) : p));
    expect(caughtUp.entries).toEqual([]);
    const again = await c.get('/activities', { from_context: 'company', order: 'asc', limit: '7', cursor: caughtUp.token });
    expect(again.body.meta.next_cursor).toBe(caughtUp.token);
    const tag = again.headers.get('etag')!;
    const unchanged = await call('GET', c.q('/activities', { from_context: 'company', order: 'asc', limit: '7', cursor: caughtUp.token }), {
      token: c.token,
      headers: { 'If-None-Match': tag },
    });
    expect(unchanged.status).toBe(304);
    await c.put('/projects/tail', { name: 'Tailed' });
    await streamDrained();
    const next = await poll(c, {}, caughtUp.token);
    expect(next.entries.map((e) => e.type)).toEqual(['Project Updated']);
    expect((await poll(c, {}, next.token)).entries).toEqual([]);
  });

  test('an edited token, or one of another query, is a 422 (one past the retention is a 410: activity.test.ts)', async () => {
    const c = await workspaceClient('sync');
    const page = await poll(c, {}, undefined);
    const edited = await c.get('/activities', { from_context: 'company', order: 'asc', cursor: `${page.token.slice(0, -2)}AA` });
    expect(edited.status).toBe(422);
    // A token from another query (newest first) is refused as well: a token belongs to its query.
    expect((await c.get('/activities', { from_context: 'company', cursor: page.token })).status).toBe(422);
  });
});
