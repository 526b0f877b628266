import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { workspaceClient } from '#support/api';
import { cursorEdit, editCursor } from '#support/hostile';
import { streamDrained } from '#support/settle';

/** Every key built from user text fits DynamoDB's byte limits by construction; every cursor edit is a 422. */
describe('names long in bytes', () => {
  const musical = '\u{1D160}';

  test('a 90-character name of 4-byte characters that NFC triples is created, read, found, renamed and duplicated', async () => {
    const c = await workspaceClient('keys');
    const name = musical.repeat(90);
    const created = await c.post('/projects', { name });
    expect(created.status, created.text).toBe(201);
    const slug = created.body.data.slug;
    expect((await c.get(`/projects/${slug}`)).body.data.name).toBe(name.normalize('NFC'));
    const found = await c.get('/projects', { name });
    expect(found.status).toBe(200);
    expect(found.body.data.map((p: { slug: string }) => p.slug)).toEqual([slug]);
    expect((await c.put(`/projects/${slug}`, { name: `${musical.repeat(120)}x` })).status).toBe(200);
    const copy = await c.post(`/projects/${slug}/duplicate`);
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body.data.name.endsWith(' (copy)')).toBe(true);
  });

  test('at 85 such characters the project can be duplicated again and again', async () => {
    const c = await workspaceClient('keys');
    const { slug } = await c.createProject(musical.repeat(85));
    for (const suffix of [' (copy)', ' (copy 2)', ' (copy 3)']) {
      const res = await c.post(`/projects/${slug}/duplicate`);
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.name.endsWith(suffix), res.body.data.name).toBe(true);
    }
  });

  test('a search longer than the index key still matches exactly the names that start with it', async () => {
    const c = await workspaceClient('keys');
    const stem = musical.repeat(60);
    await c.createProject(`${stem}a`);
    await c.createProject(`${stem}b`);
    const res = await c.get('/projects', { name: `${stem}a` });
    expect(res.body.data.map((p: { name: string }) => p.name.slice(-1))).toEqual(['a']);
  });

  test('label titles that fold to far more bytes than characters are unique without a 5xx', async () => {
    const c = await workspaceClient('keys');
    const title = '\uFDFA'.repeat(50);
    expect((await c.post('/projects-labels', { title, color: '123456' })).status).toBe(201);
    expect((await c.post('/projects-labels', { title, color: '123456' })).status).toBe(409);
    expect((await c.post('/projects-labels', { title: `${'\uFDFA'.repeat(49)}x`, color: '123456' })).status).toBe(201);
  });
});

describe('edited cursors', () => {
  test('a cursor whose decoded key has an empty field is a 422, not a 500', async () => {
    const c = await workspaceClient('cur');
    for (const name of ['a', 'b', 'c']) await c.createProject(name);
    const cursor = (await c.get('/projects', { limit: '1' })).body.meta.next_cursor as string;
    for (const field of ['PK', 'SK']) {
      const res = await c.get('/projects', { cursor: editCursor(cursor, (k) => ({ ...k, [field]: '' })) });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0].field).toBe('cursor');
    }
  });

  test('any edit of any list cursor (projects: all, by status, by name; tasks of a label; labels: all, of a project, of a task) is a 422', async () => {
    const c = await workspaceClient('cur');
    for (const name of ['Alpha', 'Alpine', 'Alps']) await c.createProject(name);
    await c.createLabel('Bug');
    await c.createLabel('Chore');
    await c.post('/projects-labels/bug/attach', { task_uuids: ['t1', 't2', 't3'] }, { project_slug: 'alpha' });
    await c.post('/projects-labels/chore/attach', { task_uuid: 't1' }, { project_slug: 'alpha' });
    await streamDrained(); // a project's labels are those its tasks carry, as the stream counts them
    const lists: [string, Record<string, string>][] = [
      ['/projects', {}],
      ['/projects', { status: 'in_progress' }],
      ['/projects', { name: 'alp' }],
      ['/projects-labels/bug/tasks', { project_slug: 'alpha' }],
      ['/projects-labels', {}],
      ['/projects-labels', { project_slug: 'alpha' }],
      ['/projects-labels', { project_slug: 'alpha', task_uuid: 't1' }],
      ['/task-labels', { project_slug: 'alpha' }],
    ];
    let tried = 0;
    for (const [path, params] of lists) {
      let cursor: string | null = null;
      for (let attempt = 0; attempt < 10 && !cursor; attempt++) {
        cursor = (await c.get(path, { ...params, limit: '1' })).body.meta.next_cursor;
        if (!cursor) await new Promise((r) => setTimeout(r, 100)); // index reads catch up
      }
      expect(cursor, path).toEqual(expect.any(String));
      await fc.assert(
        fc.asyncProperty(cursorEdit, async (edit) => {
          const edited = editCursor(cursor!, edit);
          if (edited === cursor) return;
          tried++;
          const res = await c.get(path, { ...params, limit: '1', cursor: edited });
          expect(res.status, `${path} ${Buffer.from(edited, 'base64url').toString()}: ${res.text}`).toBe(422);
        }),
        { seed: 7, numRuns: 25 },
      );
      expect((await c.get(path, { ...params, limit: '1', cursor: cursor! })).status).toBe(200);
    }
    console.log(`edited cursors: ${tried} edits, all 422`);
  });
});
