import { describe, expect, test } from 'vitest';
import { call, workspaceClient, type WorkspaceClient } from '#support/api';
import { deleteLabel, updateLabel } from '#domain/labels';
import { deleteProject, updateProject } from '#domain/projects';
import { PreconditionFailed } from '#domain/errors';
import { settledViolations } from '#support/settle';

/**
 * Conditional requests on single resources: strong ETags on reads and update answers,
 * If-None-Match -> 304, If-Match on PUT and DELETE -> 412 when stale (and nothing changes).
 */
const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

const withHeaders = (c: WorkspaceClient, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  call(method, c.q(path), { token: c.token, headers, ...(body === undefined ? {} : { body }) });

const resources = [
  {
    name: 'project',
    path: '/projects/web',
    create: (c: WorkspaceClient) => c.createProject('Web'),
    edit: { description: 'edited' },
    otherEdit: { description: 'edited by someone else' },
  },
  {
    name: 'label',
    path: '/projects-labels/bug',
    create: (c: WorkspaceClient) => c.createLabel('Bug', 'FF0000'),
    edit: { color: '00FF00' },
    otherEdit: { title: 'Defect' },
  },
] as const;

describe.each(resources)('$name', ({ path, create, edit, otherEdit }) => {
  test('a read carries a strong ETag, the same while nothing changes; If-None-Match answers 304 without a body', async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const first = await c.get(path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(STRONG_TAG);
    expect((await c.get(path)).headers.get('etag')).toBe(etag);
    const cached = await withHeaders(c, 'GET', path, { 'If-None-Match': etag });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers.get('etag')).toBe(etag);
    expect(cached.headers.get('cache-control')).toBe('no-store');
    // A list of tags, a weak form of the tag and `*` match too (weak comparison); another tag does not.
    expect((await withHeaders(c, 'GET', path, { 'If-None-Match': `"nope", ${etag}` })).status).toBe(304);
    expect((await withHeaders(c, 'GET', path, { 'If-None-Match': `W/${etag}` })).status).toBe(304);
    expect((await withHeaders(c, 'GET', path, { 'If-None-Match': '*' })).status).toBe(304);
    const other = await withHeaders(c, 'GET', path, { 'If-None-Match': '"someone-elses-tag"' });
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual(first.body.data);
  });

  test("an update answers the new representation's ETag, which a read then gives too", async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const before = (await c.get(path)).headers.get('etag');
    const updated = await c.put(path, edit);
    expect(updated.status, updated.text).toBe(200);
    const etag = updated.headers.get('etag');
    expect(etag).toMatch(STRONG_TAG);
    expect(etag).not.toBe(before);
    expect((await c.get(path)).headers.get('etag')).toBe(etag);
    expect((await withHeaders(c, 'GET', path, { 'If-None-Match': before! })).status).toBe(200);
  });

  test('If-Match with the current ETag updates; with a stale one it is a 412 that changes nothing', async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const read = await c.get(path);
    const etag = read.headers.get('etag')!;
    // Someone else edits in between.
    expect((await c.put(path, otherEdit)).status).toBe(200);
    const after = await c.get(path);
    const stale = await withHeaders(c, 'PUT', path, { 'If-Match': etag }, edit);
    expect(stale.status, stale.text).toBe(412);
    expect(stale.headers.get('content-type')).toBe('application/problem+json');
    expect(stale.body).toMatchObject({ code: 'precondition_failed', status: 412 });
    expect((await c.get(path)).body.data).toEqual(after.body.data);
    // With the current tag it goes through, and the answer's tag is the new one.
    const fresh = await withHeaders(c, 'PUT', path, { 'If-Match': after.headers.get('etag')! }, edit);
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.headers.get('etag')).toBe((await c.get(path)).headers.get('etag'));
  });

  test('If-Match compares strongly: a weak tag never matches; `*` matches whatever is there', async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const etag = (await c.get(path)).headers.get('etag')!;
    expect((await withHeaders(c, 'PUT', path, { 'If-Match': `W/${etag}` }, edit)).status).toBe(412);
    expect((await withHeaders(c, 'PUT', path, { 'If-Match': '*' }, edit)).status).toBe(200);
  });

  test('a DELETE with a stale If-Match is a 412 and the resource stays; with the current one it goes', async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const etag = (await c.get(path)).headers.get('etag')!;
    expect((await c.put(path, edit)).status).toBe(200);
    const refused = await withHeaders(c, 'DELETE', path, { 'If-Match': etag });
    expect(refused.status, refused.text).toBe(412);
    expect((await c.get(path)).status).toBe(200);
    const current = (await c.get(path)).headers.get('etag')!;
    expect((await withHeaders(c, 'DELETE', path, { 'If-Match': current })).status).toBe(200);
    expect((await c.get(path)).status).toBe(404);
    // On a resource that is gone, If-Match is a 404 like any other request for it.
    expect((await withHeaders(c, 'DELETE', path, { 'If-Match': '*' })).status).toBe(404);
    expect(await settledViolations([c.ws])).toEqual([]);
  });

  test('two editors with the same ETag: exactly one update lands, the other is a 412', async () => {
    const c = await workspaceClient('etag');
    await create(c);
    const etag = (await c.get(path)).headers.get('etag')!;
    const answers = await Promise.all([edit, otherEdit].map((body) => withHeaders(c, 'PUT', path, { 'If-Match': etag }, body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    const now = await c.get(path);
    expect(now.body.data).toEqual(winner.body.data);
    expect(now.headers.get('etag')).toBe(winner.headers.get('etag'));
  });
});

test("a project's ETag moves with what the read shows, its stats included", async () => {
  const c = await workspaceClient('etag');
  await c.createProject('Web');
  const before = (await c.get('/projects/web')).headers.get('etag');
  await c.createLabel('Bug');
  expect((await c.post('/projects-labels/bug/attach', { task_uuid: 't' }, { project_slug: 'web' })).status).toBe(200);
  await expect.poll(async () => (await c.get('/projects/web')).body.data.stats.labels_count, { timeout: 10_000 }).toBe(1);
  expect((await c.get('/projects/web')).headers.get('etag')).not.toBe(before);
});

describe('a change landing between the If-Match check and the write', () => {
  // Deterministic: the check itself lets another writer in before the conditional write runs.
  const actor = { name: 'Other Editor', username: 'other' };
  const meanwhile = (write: () => Promise<unknown>) => async () => void (await write());

  test('project update and delete: 412, and the other change stands', async () => {
    const c = await workspaceClient('etag');
    await c.createProject('Web');
    await expect(
      updateProject(
        c.ws,
        'web',
        { description: 'mine' },
        actor,
        meanwhile(() => updateProject(c.ws, 'web', { description: 'theirs' }, actor)),
      ),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    expect((await c.get('/projects/web')).body.data.description).toBe('theirs');
    await expect(
      deleteProject(
        c.ws,
        'web',
        actor,
        meanwhile(() => updateProject(c.ws, 'web', { name: 'Web 2' }, actor)),
      ),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    expect((await c.get('/projects/web')).body.data.name).toBe('Web 2');
  });

  test('label rename, recolor and delete: 412, and the other change stands', async () => {
    const c = await workspaceClient('etag');
    await c.createLabel('Bug', 'FF0000');
    await expect(
      updateLabel(
        c.ws,
        'bug',
        { title: 'Defect' },
        actor,
        meanwhile(() => updateLabel(c.ws, 'bug', { color: '00FF00' }, actor)),
      ),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    await expect(
      updateLabel(
        c.ws,
        'bug',
        { color: '0000FF' },
        actor,
        meanwhile(() => updateLabel(c.ws, 'bug', { title: 'Fault' }, actor)),
      ),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    expect((await c.get('/projects-labels/bug')).body.data).toMatchObject({ title: 'Fault', color: '00FF00' });
    await expect(
      deleteLabel(
        c.ws,
        'bug',
        actor,
        meanwhile(() => updateLabel(c.ws, 'bug', { color: 'ABCDEF' }, actor)),
      ),
    ).rejects.toBeInstanceOf(PreconditionFailed);
    expect((await c.get('/projects-labels/bug')).body.data.color).toBe('ABCDEF');
    expect(await settledViolations([c.ws])).toEqual([]);
  });

  test('without a precondition the same interleavings write as before (last writer wins)', async () => {
    const c = await workspaceClient('etag');
    await c.createProject('Web');
    await updateProject(c.ws, 'web', { description: 'theirs' }, actor);
    await updateProject(c.ws, 'web', { description: 'mine' }, actor);
    expect((await c.get('/projects/web')).body.data.description).toBe('mine');
  });
});
