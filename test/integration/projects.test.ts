import { describe, expect, test } from 'vitest';
import { settledViolations } from '#support/settle';
import { call, workspaceClient } from '#support/api';

const LIST_FIELDS = [
  'slug',
  'name',
  'description',
  'logo',
  'visibility',
  'is_private',
  'recurring',
  'owner',
  'status',
  'created_at',
].sort();
const FULL_FIELDS = [...LIST_FIELDS, 'settings', 'stats'].sort();
const CREATE_FIELDS = ['slug', 'name', 'description', 'visibility', 'is_private', 'created_at'].sort();
const STATS_FIELDS = ['tasks_count', 'completed_count', 'open_count', 'members_count', 'sprints_count', 'labels_count'].sort();

describe('create project', () => {
  test('answers 201 with exactly the create shape and a Location header', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: 'Website Redesign', description: 'New site', visibility: 'private' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(CREATE_FIELDS);
    expect(res.body.data).toMatchObject({
      slug: 'website-redesign',
      name: 'Website Redesign',
      description: 'New site',
      visibility: 'private',
      is_private: true,
    });
    expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
    expect(res.headers.get('location')).toBe(`/projects/website-redesign?company_slug=${c.ws}`);
  });

  test('takes company_slug from the body as the spec puts it', async () => {
    const c = await workspaceClient();
    const res = await call('POST', '/projects', { token: c.token, body: { company_slug: c.ws, name: 'Alpha' } });
    expect(res.status).toBe(201);
    expect(res.body.data.visibility).toBe('public');
    expect(res.body.data.is_private).toBe(false);
    expect(res.body.data.description).toBe('');
  });

  test('rejects company_slug given in query and body with different values', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: 'Alpha', company_slug: 'someone-else' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'company_slug', message: expect.any(String) }]);
  });

  test('requires company_slug', async () => {
    const c = await workspaceClient();
    const res = await call('POST', '/projects', { token: c.token, body: { name: 'Alpha' } });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.errors[0].field).toBe('company_slug');
  });

  test('lists every invalid field in one 422', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: '   ', description: 'x'.repeat(10_001), visibility: 'secret' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 422, code: 'validation_failed', title: 'Validation Failed' });
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['description', 'name', 'visibility']);
    expect(res.body.message).toBe(res.body.detail);
    expect((await c.get('/projects')).body.data).toEqual([]);
  });

  test('accepts a 255-character name and rejects 256', async () => {
    const c = await workspaceClient();
    const ok = await c.post('/projects', { name: 'n'.repeat(255) });
    expect(ok.status).toBe(201);
    expect(ok.body.data.name).toHaveLength(255);
    expect(ok.body.data.slug).toBe('n'.repeat(64));
    const tooLong = await c.post('/projects', { name: 'n'.repeat(256) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors[0].field).toBe('name');
  });

  test('keeps unicode and emoji names intact and derives an ASCII slug', async () => {
    const c = await workspaceClient();
    const accented = await c.createProject('Café Crème Élan');
    expect(accented).toMatchObject({ slug: 'cafe-creme-elan', name: 'Café Crème Élan' });
    const emoji = await c.createProject('🚀🔥');
    expect(emoji).toMatchObject({ slug: 'project', name: '🚀🔥' });
    const mixed = await c.createProject('  Ünïcödé 😀 Plan  ');
    expect(mixed).toMatchObject({ slug: 'unicode-plan', name: 'Ünïcödé 😀 Plan' });
    const got = await c.get(`/projects/${mixed.slug}`);
    expect(got.body.data.name).toBe('Ünïcödé 😀 Plan');
  });

  test('gives a taken slug the next free suffix', async () => {
    const c = await workspaceClient();
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await c.createProject('Roadmap')).slug);
    expect(slugs).toEqual(['roadmap', 'roadmap-2', 'roadmap-3']);
  });

  test('gives concurrent creates of the same name distinct slugs and loses none', async () => {
    const c = await workspaceClient();
    const results = await Promise.all(Array.from({ length: 12 }, () => c.post('/projects', { name: 'Launch' })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const slugs = results.map((r) => r.body.data.slug).sort();
    expect(new Set(slugs).size).toBe(12);
    const listed = (await c.get('/projects', { limit: '100' })).body.data.map((p: { slug: string }) => p.slug).sort();
    expect(listed).toEqual(slugs);
  });

  test('ignores unknown body fields and does not store them', async () => {
    const c = await workspaceClient();
    const res = await c.post('/projects', { name: 'Extra', color: 'red', stats: { tasks_count: 99 } });
    expect(res.status).toBe(201);
    const got = await c.get('/projects/extra');
    expect(got.body.data.color).toBeUndefined();
    expect(got.body.data.stats.tasks_count).toBe(0);
  });
});

describe('get project and stats', () => {
  test('answers the full shape with settings and stats', async () => {
    const c = await workspaceClient();
    await c.createProject('Mobile App');
    const res = await c.get('/projects/mobile-app');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(FULL_FIELDS);
    expect(res.body.data).toMatchObject({
      slug: 'mobile-app',
      logo: null,
      recurring: false,
      status: 'in_progress',
      owner: { name: 'Test User', username: 'tester' },
      settings: { default_workflow: 'kanban', task_prefix: 'MA' },
      stats: { tasks_count: 0, completed_count: 0, open_count: 0, members_count: 1, sprints_count: 0, labels_count: 0 },
    });
  });

  test('answers the statistics object', async () => {
    const c = await workspaceClient();
    await c.createProject('Stats');
    const res = await c.get('/projects/stats/stats');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(STATS_FIELDS);
    expect(res.body.data.members_count).toBe(1);
  });

  test('answers 404 problem+json for an unknown slug', async () => {
    const c = await workspaceClient();
    for (const path of ['/projects/nope', '/projects/nope/stats']) {
      const res = await c.get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 404, code: 'not_found', type: expect.stringContaining('not_found') });
      expect(res.body.request_id).toEqual(expect.any(String));
    }
  });

  test('rejects a malformed slug with 422', async () => {
    const c = await workspaceClient();
    const res = await c.get('/projects/Not%20A%20Slug');
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('slug');
  });
});

describe('list projects', () => {
  test('answers the list shape with pagination meta', async () => {
    const c = await workspaceClient();
    await c.createProject('One');
    const res = await c.get('/projects');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ limit: 50, next_cursor: null });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(LIST_FIELDS);
  });

  test('pages through every project exactly once while others are inserted', async () => {
    const c = await workspaceClient();
    for (const name of ['b', 'd', 'f', 'h', 'j']) await c.createProject(name);
    const seen: string[] = [];
    let cursor: string | null = null;
    let inserted = 0;
    do {
      const res = await c.get('/projects', { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((p: { slug: string }) => p.slug));
      cursor = res.body.meta.next_cursor;
      // Insert behind and ahead of the cursor between pages.
      if (inserted < 2) await c.createProject(['a', 'z'][inserted++]!);
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
    for (const slug of ['b', 'd', 'f', 'h', 'j', 'z']) expect(seen).toContain(slug);
  });

  test('accepts per_page as an alias of limit', async () => {
    const c = await workspaceClient();
    for (const name of ['p1', 'p2', 'p3']) await c.createProject(name);
    const res = await c.get('/projects', { per_page: '2' });
    expect(res.body.data).toHaveLength(2);
    expect(res.body.meta.limit).toBe(2);
    expect(res.body.meta.next_cursor).toEqual(expect.any(String));
  });

  test.each([['0'], ['101'], ['abc'], ['-1'], ['1.5']])('rejects limit=%s with 422', async (limit) => {
    const c = await workspaceClient();
    const res = await c.get('/projects', { limit });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('limit');
  });

  test('rejects a tampered cursor, a cursor of another query and one of another workspace with 422', async () => {
    const a = await workspaceClient();
    const b = await workspaceClient();
    for (const name of ['x1', 'x2']) {
      await a.createProject(name);
      await b.createProject(name);
    }
    const cursorA = (await a.get('/projects', { limit: '1' })).body.meta.next_cursor as string;
    const cursorB = (await b.get('/projects', { limit: '1' })).body.meta.next_cursor as string;
    const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursorA, 'base64url').toString()), f: 'x' })).toString(
      'base64url',
    );
    for (const cursor of [cursorB, 'not-a-cursor', tampered, cursorA.slice(0, -4)]) {
      const res = await a.get('/projects', { cursor });
      expect(res.status, cursor).toBe(422);
      expect(res.body.errors[0].field).toBe('cursor');
    }
    expect((await a.get('/projects', { cursor: cursorA, status: 'in_progress' })).status).toBe(422);
    expect((await a.get('/projects', { cursor: cursorA })).status).toBe(200);
  });

  test('filters by status with full pages', async () => {
    const c = await workspaceClient();
    for (const name of ['s1', 's2', 's3', 's4']) await c.createProject(name);
    await c.put('/projects/s2', { status: 'completed' });
    await c.put('/projects/s4', { status: 'completed' });
    await c.put('/projects/s3', { status: 'archived' });
    const completed = await c.get('/projects', { status: 'completed', limit: '1' });
    expect(completed.body.data.map((p: { slug: string }) => p.slug)).toEqual(['s2']);
    const next = await c.get('/projects', { status: 'completed', limit: '1', cursor: completed.body.meta.next_cursor });
    expect(next.body.data.map((p: { slug: string }) => p.slug)).toEqual(['s4']);
    expect(next.body.meta.next_cursor).toBeNull();
    expect((await c.get('/projects', { status: 'archived' })).body.data.map((p: { status: string }) => p.status)).toEqual(['archived']);
    expect((await c.get('/projects', { status: 'in_progress' })).body.data).toHaveLength(1);
    expect((await c.get('/projects', { status: 'done' })).status).toBe(422);
  });
});

describe('find project by name', () => {
  test('matches a case-insensitive trimmed prefix, exact match first, in the list shape', async () => {
    const c = await workspaceClient();
    for (const name of ['Marketing Site', 'Marketing', 'marketplace', 'Sales']) await c.createProject(name);
    const res = await c.get('/projects', { name: '  MARKET ' });
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { name: string }) => p.name).sort()).toEqual(['Marketing', 'Marketing Site', 'marketplace']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(LIST_FIELDS);
    const exact = await c.get('/projects', { name: 'marketing' });
    expect(exact.body.data[0].name).toBe('Marketing');
    expect(exact.body.data.map((p: { name: string }) => p.name)).toEqual(['Marketing', 'Marketing Site']);
  });

  test('finds unicode names and answers an empty list for no match', async () => {
    const c = await workspaceClient();
    await c.createProject('Über Größe');
    expect((await c.get('/projects', { name: 'über' })).body.data).toHaveLength(1);
    expect((await c.get('/projects', { name: 'nothing' })).body).toEqual({ data: [], meta: { limit: 50, next_cursor: null } });
  });

  test('paginates matches', async () => {
    const c = await workspaceClient();
    for (let i = 0; i < 3; i++) await c.createProject(`Team ${i}`);
    const first = await c.get('/projects', { name: 'team', limit: '2' });
    expect(first.body.data).toHaveLength(2);
    const second = await c.get('/projects', { name: 'team', limit: '2', cursor: first.body.meta.next_cursor });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.next_cursor).toBeNull();
  });

  test('rejects an empty name and name combined with status', async () => {
    const c = await workspaceClient();
    expect((await c.get('/projects', { name: '' })).status).toBe(422);
    expect((await c.get('/projects', { name: 'a', status: 'completed' })).status).toBe(422);
  });
});

describe('update project', () => {
  test('changes only the given fields and answers the full shape; the slug stays', async () => {
    const c = await workspaceClient();
    await c.createProject('Old Name', { description: 'keep me' });
    const res = await c.put('/projects/old-name', { name: 'New Name', visibility: 'private' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(FULL_FIELDS);
    expect(res.body.data).toMatchObject({
      slug: 'old-name',
      name: 'New Name',
      description: 'keep me',
      visibility: 'private',
      is_private: true,
    });
    expect((await c.get('/projects', { name: 'new' })).body.data.map((p: { slug: string }) => p.slug)).toEqual(['old-name']);
    expect((await c.get('/projects', { name: 'old' })).body.data).toEqual([]);
  });

  test('updates status and settings', async () => {
    const c = await workspaceClient();
    await c.createProject('Flow');
    const res = await c.put('/projects/flow', { status: 'archived', settings: { default_workflow: 'scrum', task_prefix: 'flw' } });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('archived');
    expect(res.body.data.settings).toEqual({ default_workflow: 'scrum', task_prefix: 'FLW' });
    const partial = await c.put('/projects/flow', { settings: { task_prefix: 'FL2' } });
    expect(partial.body.data.settings).toEqual({ default_workflow: 'scrum', task_prefix: 'FL2' });
  });

  test('rejects invalid values with 422 and changes nothing', async () => {
    const c = await workspaceClient();
    await c.createProject('Strict');
    const res = await c.put('/projects/strict', {
      name: 'Fine',
      status: 'done',
      settings: { default_workflow: 'waterfall', task_prefix: '1' },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'settings.default_workflow',
      'settings.task_prefix',
      'status',
    ]);
    expect((await c.get('/projects/strict')).body.data.name).toBe('Strict');
  });

  test('answers 404 for an unknown project', async () => {
    const c = await workspaceClient();
    expect((await c.put('/projects/ghost', { name: 'x' })).status).toBe(404);
  });
});

describe('delete project', () => {
  test('answers 200 with { slug, deleted: true } and leaves nothing readable; a new project of the same name starts empty', async () => {
    const c = await workspaceClient();
    await c.createProject('Temp');
    const label = await c.createLabel('Urgent');
    expect((await c.post(`/projects-labels/${label.slug}/attach`, { task_uuid: 't1' }, { project_slug: 'temp' })).status).toBe(200);
    const res = await c.del('/projects/temp');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual({ data: { slug: 'temp', deleted: true } });
    expect((await c.get('/projects/temp')).status).toBe(404);
    expect((await c.get('/projects')).body.data).toEqual([]);
    expect((await c.del('/projects/temp')).status).toBe(404);
    const again = await c.createProject('Temp');
    expect(again.slug).toBe('temp');
    expect((await c.get('/projects/temp/stats')).body.data.labels_count).toBe(0);
    expect((await c.get('/projects-labels', { project_slug: 'temp', task_uuid: 't1' })).body.data).toEqual([]);
    // Nor does the old project's cascade, draining through the stream, ever reach the new one.
    expect(await settledViolations([c.ws])).toEqual([]);
    expect((await c.get('/projects/temp/stats')).body.data.labels_count).toBe(0);
  });
});

describe('duplicate project', () => {
  test('copies the structure under "<name> (copy)", owned by the caller, with fresh stats', async () => {
    const c = await workspaceClient();
    await c.createProject('Source', { description: 'desc', visibility: 'private', client_uuid: 'client-1' });
    await c.put('/projects/source', { status: 'completed', settings: { default_workflow: 'scrum', task_prefix: 'SRC' } });
    const res = await c.post('/projects/source/duplicate');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(FULL_FIELDS);
    expect(res.body.data).toMatchObject({
      slug: 'source-copy',
      name: 'Source (copy)',
      description: 'desc',
      visibility: 'private',
      status: 'in_progress',
      settings: { default_workflow: 'scrum', task_prefix: 'SRC' },
      stats: { labels_count: 0, members_count: 1 },
    });
    expect(res.headers.get('location')).toBe(`/projects/source-copy?company_slug=${c.ws}`);
    const second = await c.post('/projects/source/duplicate');
    expect(second.body.data.name).toBe('Source (copy 2)');
    expect(second.body.data.slug).toBe('source-copy-2');
  });

  test('keeps the copy name within 255 characters', async () => {
    const c = await workspaceClient();
    const p = await c.createProject('L'.repeat(255));
    const res = await c.post(`/projects/${p.slug}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(255);
    expect(res.body.data.name.endsWith(' (copy)')).toBe(true);
  });

  test('answers 404 for an unknown source', async () => {
    const c = await workspaceClient();
    expect((await c.post('/projects/ghost/duplicate')).status).toBe(404);
  });
});
