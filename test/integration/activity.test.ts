import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, tokenFor, workspaceClient, type WorkspaceClient } from '#support/api';
import { scanTable } from '#checker/invariants';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { streamDrained } from '#support/settle';

/**
 * GET /activities through the local API, its stream processor writing the entries as under npm start:
 * what each change records, reading in both orders and by every filter, cheap polling, refusals,
 * isolation and retention.
 */

type Entry = {
  id: string;
  type: string;
  occurred_at: string;
  actor: { username: string } | null;
  project_slug: string | null;
  project: { slug: string; name: string } | null;
  label: { id: number; slug: string; title?: string; color?: string } | null;
  task_uuid: string | null;
  changes: { field: string; from: unknown; to: unknown }[];
  event_id: string;
  request_id: string | null;
  idempotency_key: string | null;
};

async function history(c: WorkspaceClient, params: Record<string, string> = {}): Promise<Entry[]> {
  await streamDrained();
  const res = await c.get('/activities', { from_context: 'company', ...params });
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * Every entry of a query, page by page along next_cursor: newest first to its end (a null cursor),
 * oldest first until caught up (an empty page: there, next_cursor is never null).
 */
async function walk(c: WorkspaceClient, params: Record<string, string>, between?: () => Promise<void>): Promise<Entry[]> {
  const all: Entry[] = [];
  let cursor: string | null = null;
  let caughtUp = false;
  do {
    const res = await c.get('/activities', { from_context: 'company', ...params, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (params.order === 'asc') expect(cursor).toEqual(expect.any(String));
    caughtUp = params.order === 'asc' && res.body.data.length === 0;
    if (between) await between();
  } while (cursor && !caughtUp);
  return all;
}

const fields = (e: Entry) => Object.fromEntries(e.changes.map((ch) => [ch.field, [ch.from, ch.to]]));

describe('what a change records', () => {
  test('a project: created, renamed and reset field by field, duplicated, deleted; each with its request', async () => {
    const c = await workspaceClient('act');
    const created = await call('POST', c.q('/projects'), {
      token: c.token,
      body: { name: 'Web', description: 'd1' },
      headers: { 'Idempotency-Key': 'mk-web' },
    });
    expect(created.status).toBe(201);
    const renamed = await c.put('/projects/web', { name: 'Website', settings: { task_prefix: 'WWW' } });
    expect((await c.put('/projects/web', { name: 'Website' })).status).toBe(200); // changes nothing: no entry
    await c.put('/projects/web', { status: 'completed', visibility: 'private' });
    const copy = (await c.post('/projects/web/duplicate')).body.data.slug as string;
    expect(copy).toBe('website-copy');
    const deleted = await call('DELETE', c.q(`/projects/${copy}`), { token: c.token, headers: { 'Idempotency-Key': 'rm-copy' } });
    expect(deleted.status).toBe(200);
    const entries = await history(c, { order: 'asc' });
    expect(entries.map((e) => e.type)).toEqual([
      'Project Created',
      'Project Updated',
      'Project Updated',
      'Project Duplicated',
      'Project Deleted',
    ]);
    const [create, rename, status, dup, del] = entries as [Entry, Entry, Entry, Entry, Entry];
    expect(create).toMatchObject({
      actor: { username: 'tester' },
      project_slug: 'web',
      project: { slug: 'web', name: 'Web' },
      label: null,
      task_uuid: null,
      request_id: created.headers.get('x-request-id'),
      idempotency_key: 'mk-web',
    });
    expect(fields(create)).toMatchObject({
      slug: [null, 'web'],
      name: [null, 'Web'],
      description: [null, 'd1'],
      status: [null, 'in_progress'],
    });
    expect(fields(create)).not.toHaveProperty('created_at');
    expect(fields(create)).not.toHaveProperty('stats.tasks_count');
    expect(rename.changes).toEqual([
      { field: 'name', from: 'Web', to: 'Website' },
      { field: 'settings.task_prefix', from: 'WEB', to: 'WWW' },
    ]);
    expect(rename).toMatchObject({
      project: { slug: 'web', name: 'Website' },
      request_id: renamed.headers.get('x-request-id'),
      idempotency_key: null,
    });
    expect(status.changes).toEqual([
      { field: 'visibility', from: 'public', to: 'private' },
      { field: 'status', from: 'in_progress', to: 'completed' },
    ]);
    expect(dup).toMatchObject({ project_slug: copy, project: { slug: copy, name: 'Website (copy)' } });
    expect(fields(dup)).toMatchObject({ source_slug: [null, 'web'], name: [null, 'Website (copy)'] });
    expect(del).toMatchObject({ project_slug: copy, request_id: deleted.headers.get('x-request-id'), idempotency_key: 'rm-copy' });
    expect(fields(del)).toMatchObject({ slug: [copy, null], name: ['Website (copy)', null] });
    // Ids are distinct and stable; each entry's event_id is its bus event's.
    expect(new Set(entries.map((e) => e.id)).size).toBe(5);
    expect(await history(c, { order: 'asc' })).toEqual(entries);
  });

  test('a label: created, recoloured, renamed, attached to a task and a project set, detached, deleted', async () => {
    const c = await workspaceClient('act');
    await c.createProject('Board');
    await c.createLabel('Bug', 'FF0000');
    await c.put('/projects-labels/bug', { color: '00FF00' });
    await c.put('/projects-labels/bug', { title: 'Defect' });
    await c.post('/projects-labels/bug/attach', { task_uuid: 't-1' }, { project_slug: 'board' });
    await c.post('/projects-labels/bug/attach', undefined, { project_slug: 'board' });
    const detached = await call('DELETE', c.q('/projects-labels/bug/detach', { project_slug: 'board', task_uuid: 't-1' }), {
      token: c.token,
      headers: { 'Idempotency-Key': 'off-1' },
    });
    expect(detached.status).toBe(200);
    await c.del('/projects-labels/bug');
    const entries = (await history(c, { order: 'asc' })).slice(1);
    expect(entries.map((e) => e.type)).toEqual([
      'Label Created',
      'Label Updated',
      'Label Updated',
      'Label Attached',
      'Label Attached',
      'Label Detached',
      'Label Deleted',
      // The delete takes it out of the project's label set: that detach too, by the delete.
      'Label Detached',
    ]);
    const [create, recolor, rename, onTask, inSet, off, del, outOfSet] = entries as Entry[] as [
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
    ];
    expect(create.changes).toEqual([
      { field: 'slug', from: null, to: 'bug' },
      { field: 'title', from: null, to: 'Bug' },
      { field: 'color', from: null, to: 'FF0000' },
    ]);
    expect(create).toMatchObject({ project_slug: null, project: null, label: { slug: 'bug', title: 'Bug', color: 'FF0000' } });
    expect(recolor.changes).toEqual([{ field: 'color', from: 'FF0000', to: '00FF00' }]);
    expect(rename.changes).toEqual([{ field: 'title', from: 'Bug', to: 'Defect' }]);
    expect(onTask).toMatchObject({ project_slug: 'board', task_uuid: 't-1', changes: [{ field: 'label', from: null, to: 'bug' }] });
    expect(inSet).toMatchObject({ project_slug: 'board', task_uuid: null });
    expect(off).toMatchObject({
      task_uuid: 't-1',
      changes: [{ field: 'label', from: 'bug', to: null }],
      request_id: detached.headers.get('x-request-id'),
      idempotency_key: 'off-1',
    });
    expect(fields(del)).toEqual({ slug: ['bug', null], title: ['Defect', null], color: ['00FF00', null] });
    expect(outOfSet).toMatchObject({
      project_slug: 'board',
      task_uuid: null,
      label: { slug: 'bug', title: 'Defect' },
      request_id: del.request_id,
    });
  });

  test("one change is one entry: an Idempotency-Key's replay adds none", async () => {
    const c = await workspaceClient('act');
    const send = () =>
      call('POST', c.q('/projects-labels'), {
        token: c.token,
        body: { title: 'Once', color: '123456' },
        headers: { 'Idempotency-Key': 'once' },
      });
    expect((await send()).status).toBe(201);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect((await history(c)).map((e) => e.type)).toEqual(['Label Created']);
    const items = (await scanTable([c.ws])).filter((i) => i.type === 'activity');
    // One in the workspace's history; labels belong to no project, so no second copy.
    expect(items).toHaveLength(1);
  });

  test("a deleted project's trail stays in the workspace's history and under its slug", async () => {
    const c = await workspaceClient('act');
    await c.createProject('Gone');
    await c.post('/projects-labels', { title: 'Tag', color: '111111' });
    await c.post('/projects-labels/tag/attach', { task_uuid: 't-9' }, { project_slug: 'gone' });
    await c.del('/projects/gone');
    expect((await c.get('/projects/gone')).status).toBe(404);
    await streamDrained();
    const trail = (await c.get('/activities', { from_context: 'project', project_slug: 'gone' })).body.data as Entry[];
    expect(trail.map((e) => e.type)).toEqual(['Project Deleted', 'Label Attached', 'Project Created']);
    expect((await history(c)).filter((e) => e.project_slug === 'gone')).toHaveLength(3);
    // A slug that never named a project here has no history: a 404, as on every project route.
    const never = await c.get('/activities', { from_context: 'project', project_slug: 'never-was' });
    expect(never.status).toBe(404);
    // Whatever range the query asks for.
    expect((await c.get('/activities', { from_context: 'project', project_slug: 'never-was', until: '2000-01-01T00:00:00Z' })).status).toBe(
      404,
    );
    expect(never.body.error_code).toBe('PROJECT_NOT_FOUND');
    // A project without entries yet answers an empty page.
    await c.createProject('Quiet');
    expect((await c.get('/activities', { from_context: 'project', project_slug: 'quiet', type: 'label.attached' })).body.data).toEqual([]);
  });
});

describe('reading', () => {
  let c: WorkspaceClient;
  let other: string;
  const made: string[] = [];
  beforeAll(async () => {
    c = await workspaceClient('act');
    other = await tokenFor(c.ws, { username: 'someone-else' });
    for (const name of ['P1', 'P2', 'P3', 'P4']) made.push((await c.createProject(name)).slug);
    await c.createLabel('L1', 'AAAAAA');
    await call('PUT', c.q('/projects-labels/l1'), { token: other, body: { color: 'BBBBBB' } });
    await c.post('/projects-labels/l1/attach', { task_uuid: 'task-a' }, { project_slug: 'p1' });
    await c.post('/projects-labels/l1/attach', { task_uuid: 'task-b' }, { project_slug: 'p1' });
    await streamDrained();
  });

  test('newest first, or oldest first, page by page, each entry once in both orders', async () => {
    const newest = await walk(c, { limit: '3' });
    expect(newest).toHaveLength(8);
    const times = newest.map((e) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    const oldest = await walk(c, { limit: '2', order: 'asc' });
    expect(oldest.map((e) => e.id)).toEqual(newest.map((e) => e.id).reverse());
    expect(await walk(c, { limit: '100' })).toEqual(newest);
    // Page numbers (GitScrum's per_page and page) walk the same entries.
    const pages = [];
    for (const page of ['1', '2', '3'])
      pages.push(...(await c.get('/activities', { from_context: 'company', per_page: '3', page })).body.data);
    expect(pages.map((e: Entry) => e.id)).toEqual(newest.map((e) => e.id));
  });

  test('entries arriving while a client pages: newest-first pages go on from where they were, oldest-first ones reach them', async () => {
    const d = await workspaceClient('act');
    for (const name of ['A', 'B', 'C', 'D', 'E']) await d.createProject(name);
    await streamDrained();
    let n = 0;
    const more = async () => {
      await d.createProject(`Late ${++n}`);
      await streamDrained();
    };
    const desc = await walk(d, { limit: '2' }, more);
    expect(desc.map((e) => e.project?.name)).toEqual(['E', 'D', 'C', 'B', 'A']);
    n = 10;
    const asc = await walk(d, { limit: '2', order: 'asc' }, async () => {
      if (n < 12) await more();
    });
    const names = asc.map((e) => e.project?.name);
    expect(names.slice(0, 5)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(names).toContain('Late 12');
    expect(new Set(asc.map((e) => e.id)).size).toBe(asc.length);
  });

  test('filters: type in either spelling and repeated, actor, task, since and until, a project', async () => {
    const types = async (params: Record<string, string>) => (await history(c, params)).map((e) => e.type);
    expect(await types({ type: 'label.updated' })).toEqual(['Label Updated']);
    const both = await call('GET', `${c.q('/activities', { from_context: 'company' })}&type=Label%20Created&type=project.created`, {
      token: c.token,
    });
    expect(both.body.data.map((e: Entry) => e.type)).toEqual([
      'Label Created',
      'Project Created',
      'Project Created',
      'Project Created',
      'Project Created',
    ]);
    expect(await types({ actor: 'someone-else' })).toEqual(['Label Updated']);
    expect(await types({ actor: 'nobody' })).toEqual([]);
    expect((await history(c, { uuid: 'task-b' })).map((e) => e.task_uuid)).toEqual(['task-b']);
    expect(await types({ from_context: 'project', project_slug: 'p1' })).toEqual(['Label Attached', 'Label Attached', 'Project Created']);
    expect(await types({ from_context: 'project', project_slug: 'p1', uuid: 'task-a' })).toEqual(['Label Attached']);
    const all = await history(c, { order: 'asc' });
    const [from, to] = [all[2]!.occurred_at, all[5]!.occurred_at];
    const window = await history(c, { order: 'asc', since: from, until: to });
    expect(window.map((e) => e.id)).toEqual(all.filter((e) => e.occurred_at >= from && e.occurred_at <= to).map((e) => e.id));
    expect(window.length).toBeGreaterThanOrEqual(4);
    // Another offset names the same instant.
    const shifted = new Date(Date.parse(from) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect((await history(c, { order: 'asc', since: shifted }))[0]!.id).toBe(all[2]!.id);
    // A filtered page pages too.
    const paged = await walk(c, { type: 'project.created', limit: '3' });
    expect(paged).toHaveLength(4);
  });

  test('a page is tagged: 304 while nothing new happens, a new ETag after a change', async () => {
    const first = await c.get('/activities', { from_context: 'company' });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await call('GET', c.q('/activities', { from_context: 'company' }), {
      token: c.token,
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await c.put('/projects/p4', { description: 'changed' });
    await streamDrained();
    const after = await call('GET', c.q('/activities', { from_context: 'company' }), {
      token: c.token,
      headers: { 'If-None-Match': etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.body.data[0].changes).toEqual([{ field: 'description', from: '', to: 'changed' }]);
    // A later page is tagged by its own entries.
    const page = await c.get('/activities', { from_context: 'company', limit: '1' });
    const next = await c.get('/activities', { from_context: 'company', limit: '1', cursor: page.body.meta.next_cursor });
    expect(next.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(next.headers.get('etag')).not.toBe(page.headers.get('etag'));
  });

  test("a page's tag covers its meta: the same entries with a next_cursor that appeared since are a new answer, not a 304", async () => {
    // Oldest first, a page as long as the project's history: its last page, its cursor the position reached.
    const q = { from_context: 'project', project_slug: 'p4', order: 'asc' };
    const whole = (await c.get('/activities', { ...q, limit: '100' })).body.data.length as number;
    const last = await c.get('/activities', { ...q, limit: String(whole) });
    expect(last.body.meta.next_cursor).toEqual(expect.any(String));
    const etag = last.headers.get('etag')!;
    await c.put('/projects/p4', { description: 'changed again' });
    await streamDrained();
    const after = await call('GET', c.q('/activities', { ...q, limit: String(whole) }), {
      token: c.token,
      headers: { 'If-None-Match': etag },
    });
    // The same entries; a newer one beyond them, so a cursor now: a 304 would hide it.
    expect(after.status).toBe(200);
    expect(after.body.data.map((e: { id: string }) => e.id)).toEqual(last.body.data.map((e: { id: string }) => e.id));
    expect(after.body.meta.next_cursor).toEqual(expect.any(String));
    expect(after.body.meta.next_cursor).not.toBe(last.body.meta.next_cursor);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  test("other services' contexts answer an empty page", async () => {
    for (const from_context of ['sprint', 'sprints', 'user_stories']) {
      const res = await c.get('/activities', { from_context, sprint_slug: 'sprint-1' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], meta: { limit: 50, next_cursor: null } });
    }
  });

  test.each([
    [{ from_context: 'team' }, 'from_context', 'team'],
    [{}, 'from_context', undefined],
    [{ from_context: 'project' }, 'project_slug', undefined],
    [{ from_context: 'company', type: 'Project Renamed' }, 'type', 'Project Renamed'],
    [{ from_context: 'company', since: 'yesterday' }, 'since', 'yesterday'],
    [{ from_context: 'company', until: '2026-11-27T10:00:00' }, 'until', '2026-11-27T10:00:00'],
    [{ from_context: 'company', since: '2026-11-27T10:00:00Z', until: '2026-11-26T10:00:00Z' }, 'until', '2026-11-26T10:00:00.000Z'],
    [{ from_context: 'company', order: 'newest' }, 'order', 'newest'],
    [{ from_context: 'company', uuid: 'bad id' }, 'uuid', 'bad id'],
    [{ from_context: 'company', actor: '' }, 'actor', ''],
    [{ from_context: 'company', type: 'label.created', page: '2' }, 'page', '2'],
  ])('%o is a 422 naming %s', async (params, field, value) => {
    const res = await c.get('/activities', params as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
    if (value !== undefined) expect(res.body.detail).toContain(field);
  });

  test('a cursor is bound to its workspace and its query: edited, moved or reused elsewhere, a 422', async () => {
    const page = await c.get('/activities', { from_context: 'company', limit: '2' });
    const cursor = page.body.meta.next_cursor as string;
    const edited = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}A`;
    const uses: Record<string, string>[] = [
      { from_context: 'company', limit: '2', cursor: edited },
      { from_context: 'company', limit: '2', cursor, order: 'asc' },
      { from_context: 'company', limit: '2', cursor, type: 'project.created' },
      { from_context: 'project', project_slug: 'p1', limit: '2', cursor },
    ];
    for (const params of uses) {
      const res = await c.get('/activities', params);
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe('cursor');
    }
    const elsewhere = await workspaceClient('act');
    expect((await elsewhere.get('/activities', { from_context: 'company', limit: '2', cursor })).status).toBe(422);
  });

  test("a token reads only its workspaces' history, and only with activity:read", async () => {
    const stranger = await workspaceClient('act');
    await stranger.createProject('Theirs');
    await streamDrained();
    expect((await call('GET', c.q('/activities', { from_context: 'company' }), { token: stranger.token })).status).toBe(403);
    expect((await history(c)).some((e) => e.project?.name === 'Theirs')).toBe(false);
    expect((await history(stranger)).map((e) => e.project?.name)).toEqual(['Theirs']);
    const narrow = await tokenFor(c.ws, { scopes: ['projects:read', 'labels:read'] });
    const refused = await call('GET', c.q('/activities', { from_context: 'company' }), { token: narrow });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('activity:read');
  });
});

describe('retention', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi({ sharing: localStack().dynamodbPort, env: { ACTIVITY_RETENTION: '3s' } });
  });
  afterAll(async () => api?.stop());

  test('an entry past ACTIVITY_RETENTION is no longer answered, in any context', async () => {
    const token = /TOKEN=(\S+)/.exec(api.output())![1]!;
    const get = () => call('GET', '/activities?company_slug=acme-corp&from_context=company', { token, base: api.url });
    const made = await call('POST', '/projects?company_slug=acme-corp', { token, base: api.url, body: { name: 'Brief' } });
    expect(made.status).toBe(201);
    await expect.poll(async () => (await get()).body.data.length, { timeout: 5_000, interval: 50 }).toBe(1);
    const madeAt = Date.parse((await get()).body.data[0].occurred_at);
    // A follower's token after it, kept past the retention: a 410 that says to start again from since.
    const sync = () => call('GET', '/activities?company_slug=acme-corp&from_context=company&order=asc', { token, base: api.url });
    const kept = (await sync()).body.meta.next_cursor as string;
    // The token names the time it was made (caught up: its place is the position, dated at the read), no later than now.
    const keptBy = Date.now();
    // Gone once its three seconds are up (polled: the wait is the retention itself).
    await expect.poll(async () => (await get()).body.data.length, { timeout: 10_000, interval: 200 }).toBe(0);
    expect(Date.now()).toBeGreaterThanOrEqual(madeAt + 3_000);
    // And the token too once three seconds have passed since it was made (under load, later than the entry's own).
    await expect.poll(() => Date.now(), { timeout: 10_000, interval: 100 }).toBeGreaterThan(keptBy + 3_000);
    const page = await call('GET', '/activities?company_slug=acme-corp&from_context=project&project_slug=brief&order=asc', {
      token,
      base: api.url,
    });
    const gone = await call('GET', `/activities?company_slug=acme-corp&from_context=company&order=asc&cursor=${kept}`, {
      token,
      base: api.url,
    });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({
      code: 'gone',
      error_code: 'SYNC_TOKEN_EXPIRED',
      detail: expect.stringContaining('Start again with since'),
    });
    // Oldest first, a sync token even so: the place to go on from.
    expect(page.body).toEqual({ data: [], meta: { limit: 50, next_cursor: expect.any(String) } });
  });
});
