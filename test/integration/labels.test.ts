import { describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { streamDrained } from '#support/settle';
import { workspaceClient } from '#support/api';
import { expectConsistent, titles } from '#support/labels';

describe('create label', () => {
  test('answers 201 with the label; a leading # is dropped and the color uppercased', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects-labels', { title: 'Bug', color: '#ff5733' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number), slug: 'bug', title: 'Bug', color: 'FF5733' });
    expect(Object.keys(res.body.data).sort()).toEqual(['color', 'id', 'slug', 'title']);
    expect(res.headers.get('location')).toBe(`/projects-labels/bug?company_slug=${c.ws}`);
  });

  test.each([['FF573'], ['GG5733'], ['##FF5733'], [''], ['FF57331']])('rejects color %j with 422', async (color) => {
    const c = await workspaceClient();
    const res = await c.post('/projects-labels', { title: 'X', color });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('color');
  });

  test('requires title and color, 1-50 characters of title', async () => {
    const c = await workspaceClient();
    const missing = await c.post('/projects-labels', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['color', 'title']);
    expect((await c.post('/projects-labels', { title: 't'.repeat(51), color: 'FFFFFF' })).status).toBe(422);
    expect((await c.post('/projects-labels', { title: 't'.repeat(50), color: 'FFFFFF' })).status).toBe(201);
    expect((await c.get('/projects-labels')).body.data).toHaveLength(1);
  });

  test('refuses a title already used in the workspace, case-insensitively (Bug vs bug)', async () => {
    const c = await workspaceClient();
    await c.createLabel('Bug');
    const res = await c.post('/projects-labels', { title: 'bug', color: '000000' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 409, code: 'conflict' });
    expect((await c.post('/projects-labels', { title: '  BUG ', color: '000000' })).status).toBe(409);
    const other = await workspaceClient();
    expect((await other.post('/projects-labels', { title: 'bug', color: '000000' })).status).toBe(201);
  });

  test('lets exactly one of many concurrent creates of one title win', async () => {
    const c = await workspaceClient();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => c.post('/projects-labels', { title: i % 2 ? 'Race' : 'race', color: '123456' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    await expectConsistent(c.ws);
  });

  test('derives distinct slugs for titles that fold to the same slug', async () => {
    const c = await workspaceClient();
    expect((await c.createLabel('C++')).slug).toBe('c');
    expect((await c.createLabel('C#')).slug).toBe('c-2');
    expect((await c.createLabel('🐛')).slug).toBe('label');
  });

  test('assigns increasing ids that are never reused', async () => {
    const c = await workspaceClient();
    const a = await c.createLabel('A');
    const b = await c.createLabel('B');
    expect(b.id).toBeGreaterThan(a.id);
    expect((await c.del(`/projects-labels/${b.slug}`)).status).toBe(200);
    const again = await c.createLabel('B');
    expect(again.id).toBeGreaterThan(b.id);
  });
});

describe('list labels', () => {
  test('each label list answers the shape its route row chooses for the parameters given (the client types follow the row)', async () => {
    const c = await workspaceClient();
    const project = (await c.createProject('Chosen')).slug;
    const label = (await c.createLabel('Chosen')).slug;
    expect((await c.post(`/projects-labels/${label}/attach`, { task_uuid: 't-1' }, { project_slug: project })).status).toBe(200);
    // A project's labels come from the use counters the stream derives (docs/api.md: within moments): wait for it.
    await streamDrained();
    const lists = routes.filter((r) => r.answerChoice?.paged);
    expect(lists.map((r) => r.name)).toEqual(['list-labels', 'project-labels']);
    for (const route of lists) {
      const choice = route.answerChoice!;
      for (const [given, query] of [
        [[], {}],
        [['project_slug'], { project_slug: project }],
        [['project_slug', 'task_uuid'], { project_slug: project, task_uuid: 't-1' }],
      ] as const) {
        if (route.name === 'project-labels' && !given.includes('project_slug' as never)) continue;
        for (const paged of [false, true]) {
          const res = await c.get(route.path, { ...query, ...(paged ? { limit: '5' } : {}) });
          const where = `${route.name} ${JSON.stringify(query)} paged=${paged}`;
          expect(res.status, where).toBe(200);
          const kind = choice.items.find(([param]) => (given as readonly string[]).includes(param))?.[1] ?? choice.otherwise;
          expect(res.body.data.length, where).toBe(1);
          expect(Object.keys(res.body.data[0]).sort(), where).toEqual(
            kind === 'ProjectLabel' ? ['color', 'id', 'slug', 'tasks_count', 'title'] : ['color', 'id', 'slug', 'title'],
          );
          expect(choice.paged).toContain('limit');
          expect(res.body.meta, where).toEqual(paged ? { limit: 5, next_cursor: null } : { limit: 1, next_cursor: null });
        }
      }
    }
  });

  test('an attach and a detach answer the shape their route rows choose for the tasks named: one task, several, none', async () => {
    const c = await workspaceClient();
    const project = (await c.createProject('Chosen Change')).slug;
    const label = (await c.createLabel('Chosen Change')).slug;
    const changes = routes.filter((r) => r.answerChoice && !r.answerChoice.paged);
    expect(changes.map((r) => r.name)).toEqual(['attach-label', 'detach-label']);
    const keysOf = {
      Label: ['color', 'id', 'slug', 'title'],
      TaskLabels: ['labels', 'task_uuid'],
      ProjectLabel: ['color', 'id', 'slug', 'tasks_count', 'title'],
    };
    for (const route of changes) {
      for (const body of [{ task_uuid: 't-1' }, { task_uuids: ['t-1', 't-2'] }, {}]) {
        const path = route.path.replace('{slug}', label);
        const res = await (route.method === 'POST' ? c.post : c.del)(path, body, { project_slug: project });
        const where = `${route.name} ${JSON.stringify(body)}`;
        expect(res.status, where).toBe(200);
        const kind = route.answerChoice!.items.find(([param]) => param in body)?.[1] ?? route.answerChoice!.otherwise;
        for (const item of res.body.data) expect(Object.keys(item).sort(), where).toEqual(keysOf[kind as keyof typeof keysOf]);
        if (route.method === 'POST') expect(res.body.data.length, where).toBeGreaterThan(0);
      }
    }
  });

  test('returns every label of the workspace ordered by title', async () => {
    const c = await workspaceClient();
    for (const t of ['zeta', 'Alpha', 'beta', 'Émile', 'alpha2']) await c.createLabel(t);
    const res = await c.get('/projects-labels');
    expect(res.status).toBe(200);
    expect(titles(res.body.data)).toEqual(['Alpha', 'alpha2', 'beta', 'zeta', 'Émile']);
    // A list answered whole: its meta says so (as every list's, DESIGN's HTTP contract).
    expect(res.body.meta).toEqual({ limit: 5, next_cursor: null });
  });

  test('returns all of 120 labels in one response', async () => {
    const c = await workspaceClient();
    await Promise.all(Array.from({ length: 120 }, (_, i) => c.createLabel(`L${String(i).padStart(3, '0')}`)));
    const res = await c.get('/projects-labels');
    expect(res.body.data).toHaveLength(120);
    expect(res.body.data[0].title).toBe('L000');
    expect(new Set(res.body.data.map((l: { id: number }) => l.id)).size).toBe(120);
    expect(res.body.meta).toEqual({ limit: 120, next_cursor: null });
  });

  test('pages by title with limit and cursor; a label created or deleted between pages shifts nothing', async () => {
    const c = await workspaceClient();
    for (let i = 0; i < 20; i++) await c.createLabel(`L${String(i * 2).padStart(2, '0')}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await c.get('/projects-labels', { limit: '7', ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.meta.limit).toBe(7);
      seen.push(...titles(res.body.data));
      cursor = res.body.meta.next_cursor;
      if (pages++ === 0) {
        // After the first page (L00-L12): one label before the cursor, one after, one read, one unread gone.
        await c.createLabel('L01');
        await c.createLabel('L13');
        expect((await c.del('/projects-labels/l02')).status).toBe(200);
        expect((await c.del('/projects-labels/l30')).status).toBe(200);
      }
    } while (cursor !== null);
    const expected = [...Array.from({ length: 20 }, (_, i) => `L${String(i * 2).padStart(2, '0')}`), 'L13']
      .filter((t) => t !== 'L30')
      .sort();
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });

  test('pages by number with page and per_page; next_cursor is null exactly on the last page', async () => {
    const c = await workspaceClient();
    for (let i = 0; i < 12; i++) await c.createLabel(`P${String(i).padStart(2, '0')}`);
    const second = await c.get('/projects-labels', { page: '2', per_page: '5' });
    expect(titles(second.body.data)).toEqual(['P05', 'P06', 'P07', 'P08', 'P09']);
    expect(second.body.meta).toEqual({ limit: 5, current_page: 2, per_page: 5, next_cursor: expect.any(String) });
    const rest = await c.get('/projects-labels', { cursor: second.body.meta.next_cursor });
    expect(titles(rest.body.data)).toEqual(['P10', 'P11']);
    const third = await c.get('/projects-labels', { page: '3', per_page: '5' });
    expect(titles(third.body.data)).toEqual(['P10', 'P11']);
    expect(third.body.meta.next_cursor).toBeNull();
    expect((await c.get('/projects-labels', { page: '4', per_page: '5' })).body).toMatchObject({ data: [], meta: { next_cursor: null } });
    expect((await c.get('/projects-labels', { limit: '12' })).body.meta.next_cursor).toBeNull();
  });

  test("a cursor serves only its own list: another workspace's, project's or task's is a 422", async () => {
    const c = await workspaceClient();
    const other = await workspaceClient();
    await c.createProject('Web');
    for (const t of ['A', 'B', 'C']) {
      await c.createLabel(t);
      await other.createLabel(t);
      await c.post(`/projects-labels/${t.toLowerCase()}/attach`, { task_uuid: 't1' }, { project_slug: 'web' });
    }
    const cursor = (await c.get('/projects-labels', { limit: '1' })).body.meta.next_cursor as string;
    const ofTask = (await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1', limit: '1' })).body.meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect(ofTask).toEqual(expect.any(String));
    expect((await other.get('/projects-labels', { cursor })).status).toBe(422);
    expect((await c.get('/projects-labels', { project_slug: 'web', cursor })).status).toBe(422);
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't2', cursor: ofTask })).status).toBe(422);
    const next = await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1', cursor: ofTask });
    expect(titles(next.body.data)).toEqual(['B', 'C']);
    // A cursor is checked before anything is read: a bad one is a 422 even for a project that does not exist.
    expect((await c.get('/projects-labels', { project_slug: 'ghost', cursor: 'garbage' })).status).toBe(422);
  });

  test('GET /task-labels takes the same query: project_slug required, task_uuid and paging', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    for (const t of ['A', 'B', 'C']) {
      await c.createLabel(t);
      await c.post(`/projects-labels/${t.toLowerCase()}/attach`, { task_uuid: t === 'C' ? 't2' : 't1' }, { project_slug: 'web' });
    }
    // A project's labels are those its tasks carry, as the stream counts them.
    await streamDrained();
    expect((await c.get('/task-labels')).status).toBe(422);
    const all = await c.get('/task-labels', { project_slug: 'web' });
    expect(all.body).toEqual((await c.get('/projects-labels', { project_slug: 'web' })).body);
    expect(titles(all.body.data)).toEqual(['A', 'B', 'C']);
    expect(titles((await c.get('/task-labels', { project_slug: 'web', task_uuid: 't1' })).body.data)).toEqual(['A', 'B']);
    const first = await c.get('/task-labels', { project_slug: 'web', limit: '2' });
    expect(titles(first.body.data)).toEqual(['A', 'B']);
    expect(titles((await c.get('/task-labels', { project_slug: 'web', cursor: first.body.meta.next_cursor })).body.data)).toEqual(['C']);
  });

  test('task_uuid needs project_slug; project_slug alone lists that project (404 when unknown)', async () => {
    const c = await workspaceClient();
    expect((await c.get('/projects-labels', { task_uuid: 't1' })).status).toBe(422);
    expect((await c.get('/projects-labels', { project_slug: 'p' })).status).toBe(404);
    await c.createProject('P');
    expect((await c.get('/projects-labels', { project_slug: 'p' })).body).toEqual({ data: [], meta: { limit: 0, next_cursor: null } });
  });
});

describe('update label', () => {
  test('changes title and color; id and slug stay', async () => {
    const c = await workspaceClient();
    const label = await c.createLabel('Bug');
    const res = await c.put('/projects-labels/bug', { title: 'Defect', color: 'abcdef' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: label.id, slug: 'bug', title: 'Defect', color: 'ABCDEF' });
    expect((await c.put('/projects-labels/bug', { color: '#000000' })).body.data).toEqual({
      id: label.id,
      slug: 'bug',
      title: 'Defect',
      color: '000000',
    });
    // The old title is free again, the new one is taken.
    expect((await c.post('/projects-labels', { title: 'bug', color: '111111' })).status).toBe(201);
    expect((await c.post('/projects-labels', { title: 'DEFECT', color: '111111' })).status).toBe(409);
    await expectConsistent(c.ws);
  });

  test('refuses a rename to a title another label has (case-insensitively) and changes nothing', async () => {
    const c = await workspaceClient();
    await c.createLabel('Bug');
    await c.createLabel('Feature');
    const res = await c.put('/projects-labels/feature', { title: 'BUG', color: '000000' });
    expect(res.status).toBe(409);
    expect((await c.get('/projects-labels')).body.data.map((l: { title: string; color: string }) => [l.title, l.color])).toEqual([
      ['Bug', 'FF5733'],
      ['Feature', 'FF5733'],
    ]);
  });

  test('allows a change of case only', async () => {
    const c = await workspaceClient();
    await c.createLabel('bug');
    expect((await c.put('/projects-labels/bug', { title: 'BUG' })).body.data.title).toBe('BUG');
    await expectConsistent(c.ws);
  });

  test('answers 404 for an unknown label and 422 for a bad color', async () => {
    const c = await workspaceClient();
    expect((await c.put('/projects-labels/nope', { title: 'x' })).status).toBe(404);
    await c.createLabel('Bug');
    expect((await c.put('/projects-labels/bug', { color: 'red' })).status).toBe(422);
  });
});

describe('toggle', () => {
  test('takes task_uuid from the query or the body; both and different, or neither, is a 422 that changes nothing', async () => {
    const c = await workspaceClient();
    await c.createProject('Web');
    await c.createLabel('Bug');
    const toggle = (body: unknown, params: Record<string, string> = {}) =>
      c.post('/task-labels/bug/toggle', body, { project_slug: 'web', ...params });
    expect(titles((await toggle({ task_uuid: 't1' })).body.data)).toEqual(['Bug']);
    expect(titles((await toggle({}, { task_uuid: 't1' })).body.data)).toEqual([]);
    expect(titles((await toggle({ task_uuid: 't1' }, { task_uuid: 't1' })).body.data)).toEqual(['Bug']);
    for (const [body, params] of [
      [{}, {}],
      [{ task_uuid: 't2' }, { task_uuid: 't1' }],
      [{ task_uuid: '' }, {}],
    ] as const) {
      const res = await toggle(body, params);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['task_uuid']);
    }
    expect(titles((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1' })).body.data)).toEqual(['Bug']);
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't2' })).body.data).toEqual([]);
  });
});
