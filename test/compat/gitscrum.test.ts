import { describe, expect, test } from 'vitest';
import { settledLabelsCount, streamDrained } from '#support/settle';
import { apiUrl, call, workspaceClient } from '#support/api';
import { GitScrumStandIn } from '#support/gitscrum';

/**
 * GitScrum's official client, method by method, against the local API: the requests it sends
 * (as read from its source, see test/support/gitscrum.ts) and what it does with the answers.
 */
async function setup() {
  const c = await workspaceClient('gs');
  return { c, client: new GitScrumStandIn(apiUrl(), c.token) };
}

describe("GitScrum's client, project methods", () => {
  test('createProject: POST /projects?company_slug= with the workspace in the query only; reads data.slug and data.name', async () => {
    const { c, client } = await setup();
    expect(await client.createProject(c.ws, { name: 'Website Redesign', description: 'New site', visibility: 'private' })).toEqual({
      project_slug: 'website-redesign',
      name: 'Website Redesign',
    });
  });

  test('getProjects: GET /projects?company_slug=&per_page=100[&status=]', async () => {
    const { c, client } = await setup();
    await c.createProject('One');
    await c.createProject('Two');
    await c.put('/projects/two', { status: 'completed' });
    expect((await client.getProjects(c.ws)).data.map((p) => (p as { slug: string }).slug)).toEqual(['one', 'two']);
    expect((await client.getProjects(c.ws, { status: 'completed' })).data.map((p) => (p as { slug: string }).slug)).toEqual(['two']);
  });

  test('findProjectByName: GET /search?q=&company_slug=&categories=projects&limit=5, slugs parsed from items[].route', async () => {
    const { c, client } = await setup();
    await c.createProject('Marketing Site');
    await c.createProject('Marketing');
    expect(await client.findProjectByName('marketing', c.ws)).toEqual({
      project_slug: 'marketing',
      company_slug: c.ws,
      name: 'Marketing',
      workspace_slug: c.ws,
    });
    expect(await client.findProjectByName('Marketing Site', c.ws)).toMatchObject({ project_slug: 'marketing-site' });
    expect(await client.findProjectByName('marketing-site', c.ws)).toMatchObject({ project_slug: 'marketing-site' });
    expect(await client.findProjectByName('nothing like it', c.ws)).toBeNull();
  });

  test('findProjectByName without a workspace searches every workspace the token is granted', async () => {
    const { c, client } = await setup();
    await c.createProject('Roadmap 2027');
    expect(await client.findProjectByName('Roadmap 2027')).toEqual({
      project_slug: 'roadmap-2027',
      company_slug: c.ws,
      name: 'Roadmap 2027',
      workspace_slug: c.ws,
    });
  });

  test('search: other categories answer an empty result, not an error', async () => {
    const { c, client } = await setup();
    await c.createProject('Alpha');
    const data = (await client.search('alp', { company_slug: c.ws, categories: 'tasks,projects,sprint' })) as Record<
      string,
      { items: unknown[] }
    >;
    expect(Object.keys(data).sort()).toEqual(['projects', 'sprints', 'tasks']);
    expect(data.tasks!.items).toEqual([]);
    expect(data.projects!.items).toHaveLength(1);
  });

  test('search takes per_page as an alias of limit, as every route does', async () => {
    const { c } = await setup();
    for (const name of ['Alpha', 'Alpine', 'Alps']) await c.createProject(name);
    const items = async (params: Record<string, string>) =>
      (await c.get('/search', { q: 'alp', categories: 'projects', ...params })).body.data.projects.items;
    expect(await items({ per_page: '2' })).toHaveLength(2);
    expect(await items({ limit: '1', per_page: '1' })).toHaveLength(1);
    expect(await items({})).toHaveLength(3);
    const both = await c.get('/search', { q: 'alp', limit: '1', per_page: '2' });
    expect(both.status).toBe(422);
    expect(both.body.errors[0].field).toBe('per_page');
  });

  test('getProject and getProjectStats: GET /projects/{slug}[/stats]?company_slug=; reads data', async () => {
    const { c, client } = await setup();
    await c.createProject('Mobile App');
    expect(await client.getProject('mobile-app', c.ws)).toMatchObject({ slug: 'mobile-app', stats: { members_count: 1 } });
    expect(await client.getProjectStats('mobile-app', c.ws)).toMatchObject({ tasks_count: 0, labels_count: 0 });
  });

  test('an unknown project gives the client its PROJECT_NOT_FOUND wording', async () => {
    const { c, client } = await setup();
    await expect(client.getProject('ghost', c.ws)).rejects.toThrow('Project not found or was deleted.');
    await expect(client.getProjectStats('ghost', c.ws)).rejects.toThrow('Project not found or was deleted.');
  });

  test('delete() of a project parses a JSON answer, so the client sees the delete succeed', async () => {
    const { c, client } = await setup();
    await c.createProject('Temp');
    expect(await client.delete(`projects/temp?company_slug=${c.ws}`)).toEqual({ data: { slug: 'temp', deleted: true } });
  });
});

describe("GitScrum's client, label methods", () => {
  test('createLabel: POST /projects-labels?company_slug= {title, color}; reads data', async () => {
    const { c, client } = await setup();
    expect(await client.createLabel(c.ws, { title: 'Bug', color: 'FF5733' })).toEqual({
      id: expect.any(Number),
      slug: 'bug',
      title: 'Bug',
      color: 'FF5733',
    });
  });

  test('getWorkspaceLabels: GET /projects-labels?company_slug=', async () => {
    const { c, client } = await setup();
    await c.createLabel('Bug');
    expect(await client.getWorkspaceLabels(c.ws)).toEqual([expect.objectContaining({ slug: 'bug' })]);
  });

  test('updateLabel: PUT /projects-labels/{slug}?company_slug=, even with an empty body', async () => {
    const { c, client } = await setup();
    await c.createLabel('Bug');
    await client.updateLabel('bug', c.ws, { color: '000000' });
    await client.updateLabel('bug', c.ws, {});
    expect(await client.getWorkspaceLabels(c.ws)).toEqual([expect.objectContaining({ color: '000000' })]);
  });

  test('attachLabelToProject and getProjectLabels: the project label set, with tasks_count', async () => {
    const { c, client } = await setup();
    await c.createProject('Web');
    await c.createLabel('Bug');
    await c.createLabel('UI');
    await client.attachLabelToProject('bug', 'web', c.ws);
    await client.attachLabelToProject('bug', 'web', c.ws);
    await c.post('/projects-labels/ui/attach', { task_uuids: ['t1', 't2'] }, { project_slug: 'web' });
    // tasks_count comes from counters the stream keeps: exact once it has drained.
    await streamDrained();
    expect(await client.getProjectLabels('web', c.ws)).toEqual([
      { id: expect.any(Number), slug: 'bug', title: 'Bug', color: 'FF5733', tasks_count: 0 },
      { id: expect.any(Number), slug: 'ui', title: 'UI', color: 'FF5733', tasks_count: 2 },
    ]);
    expect((await c.get('/projects-labels', { project_slug: 'web' })).body.data).toEqual(await client.getProjectLabels('web', c.ws));
    await settledLabelsCount(c, 'web', 1);
  });

  test('detachLabelFromProject: DELETE without a body (Content-Type still sent), idempotent, JSON answer', async () => {
    const { c, client } = await setup();
    await c.createProject('Web');
    await c.createLabel('Bug');
    await client.attachLabelToProject('bug', 'web', c.ws);
    await client.detachLabelFromProject('bug', 'web', c.ws);
    await client.detachLabelFromProject('bug', 'web', c.ws);
    expect(await client.getProjectLabels('web', c.ws)).toEqual([]);
  });

  test('deleting a label takes it out of every project label set; delete() parses the JSON answer', async () => {
    const { c, client } = await setup();
    await c.createProject('Web');
    const label = await c.createLabel('Bug');
    await client.attachLabelToProject('bug', 'web', c.ws);
    expect(await client.delete(`projects-labels/bug?company_slug=${c.ws}`)).toEqual({ data: { id: label.id, slug: 'bug', deleted: true } });
    expect(await client.getProjectLabels('web', c.ws)).toEqual([]);
  });

  test('toggleLabelOnTask: POST /task-labels/{slug}/toggle?company_slug&project_slug&task_uuid with {}; attach then detach', async () => {
    const { c, client } = await setup();
    await c.createProject('Web');
    await c.createLabel('Bug');
    expect(await client.toggleLabelOnTask('t-1', 'bug', 'web', c.ws)).toEqual({ data: [expect.objectContaining({ slug: 'bug' })] });
    expect(await client.toggleLabelOnTask('t-1', 'bug', 'web', c.ws)).toEqual({ data: [] });
  });

  test('an unknown label: a 404 the client reports as not found', async () => {
    const { c, client } = await setup();
    await c.createProject('Web');
    await expect(client.toggleLabelOnTask('t-1', 'ghost', 'web', c.ws)).rejects.toThrow('not found');
  });
});

describe("GitScrum's client, the activity tool", () => {
  test('activities: GET /activities?from_context=&company_slug=[&project_slug=][&uuid=]; the tool prints data', async () => {
    const { c, client } = await setup();
    const { project_slug } = await client.createProject(c.ws, { name: 'History Board' });
    await client.createLabel(c.ws, { title: 'Bug', color: 'D73A4A' });
    await client.toggleLabelOnTask('task-1', 'bug', project_slug, c.ws);
    await client.updateLabel('bug', c.ws, { color: '00FF00' });
    await streamDrained();
    const company = JSON.parse(await client.activityTool({ from_context: 'company', company_slug: c.ws })) as { type: string }[];
    expect(company.map((e) => e.type)).toEqual(['Label Updated', 'Label Attached', 'Label Created', 'Project Created']);
    const project = JSON.parse(await client.activityTool({ from_context: 'project', company_slug: c.ws, project_slug })) as {
      type: string;
    }[];
    expect(project.map((e) => e.type)).toEqual(['Label Attached', 'Project Created']);
    const task = (await client.getActivities({ from_context: 'project', company_slug: c.ws, project_slug, uuid: 'task-1' })) as {
      task_uuid: string;
      changes: unknown[];
    }[];
    expect(task).toEqual([expect.objectContaining({ task_uuid: 'task-1', changes: [{ field: 'label', from: null, to: 'bug' }] })]);
    // The sprint contexts (the client sends sprint_slug with them) are other services': an empty list, not an error.
    expect(await client.getActivities({ from_context: 'sprint', company_slug: c.ws, sprint_slug: 'sprint-1' })).toEqual([]);
    // Without project_slug, the project context is an error the client reports in the service's words.
    await expect(client.getActivities({ from_context: 'project', company_slug: c.ws })).rejects.toThrow(
      'project_slug is required with from_context=project',
    );
  });
});

describe('what GitScrum clients rely on beyond one method', () => {
  test('problem bodies carry error_code: LABEL_NOT_FOUND, PROJECT_NOT_FOUND, VALIDATION_ERROR, TOKEN_INVALID', async () => {
    const { c } = await setup();
    expect((await c.get('/projects-labels/ghost')).body.error_code).toBe('LABEL_NOT_FOUND');
    expect((await c.get('/projects/ghost')).body.error_code).toBe('PROJECT_NOT_FOUND');
    expect((await c.post('/projects-labels', { title: '' })).body.error_code).toBe('VALIDATION_ERROR');
    expect((await call('GET', c.q('/projects'), { token: 'pls_nope' })).body.error_code).toBe('TOKEN_INVALID');
  });

  test('GET /projects-labels/{slug} answers the Location of create', async () => {
    const { c } = await setup();
    const created = await c.post('/projects-labels', { title: 'Bug', color: 'FF5733' });
    // Resolved as a client resolves it: against the API's origin (behind a stage, the Location carries it).
    const got = await call('GET', created.headers.get('location')!, { token: c.token, base: new URL(apiUrl()).origin });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);
  });

  test('page and per_page walk every project once; past the last page is empty', async () => {
    const { c } = await setup();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await c.createProject(name);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await c.get('/projects', { page: String(page), per_page: '2' });
      expect(res.body.meta).toMatchObject({ current_page: page, per_page: 2, limit: 2 });
      seen.push(...res.body.data.map((p: { slug: string }) => p.slug));
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await c.get('/projects', { page: '4', per_page: '2' })).body.data).toEqual([]);
    // The deepest a page number may reach: 1,000 items.
    expect((await c.get('/projects', { page: '10', per_page: '100' })).body.data).toEqual([]);
  });

  test('page with cursor, and page x per_page over 1,000, are 422s that point to cursors', async () => {
    const { c } = await setup();
    await c.createProject('a');
    await c.createProject('b');
    const cursor = (await c.get('/projects', { limit: '1' })).body.meta.next_cursor;
    expect((await c.get('/projects', { page: '2', cursor })).status).toBe(422);
    const deep = await c.get('/projects', { page: '11', per_page: '100' });
    expect(deep.status).toBe(422);
    expect(deep.body.errors[0]).toEqual({ field: 'page', message: expect.stringContaining('cursor') });
  });

  test('task_uuids in the query string (DELETE bodies get dropped); both places and different: 422', async () => {
    const { c } = await setup();
    await c.createProject('Web');
    await c.createLabel('Bug');
    const on = await c.post('/projects-labels/bug/attach', undefined, { project_slug: 'web', task_uuids: 'a,b' });
    expect(on.body.data.map((t: { task_uuid: string }) => t.task_uuid)).toEqual(['a', 'b']);
    const off = await c.del('/projects-labels/bug/detach', undefined, { project_slug: 'web', task_uuid: 'a' });
    expect(off.body.data).toEqual([]);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual(['b']);
    expect((await c.del('/projects-labels/bug/detach', { task_uuid: 'b' }, { project_slug: 'web', task_uuid: 'a' })).status).toBe(422);
  });

  test('two concurrent toggles of the same pair end in a defined state with no duplicate link', async () => {
    const { c } = await setup();
    await c.createProject('Web');
    await c.createLabel('Bug');
    for (let round = 0; round < 6; round++) {
      const results = await Promise.all([1, 2].map(() => c.post('/task-labels/bug/toggle', {}, { project_slug: 'web', task_uuid: 't' })));
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      // Serialised: one attached, the other detached again.
      expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't' })).body.data).toEqual([]);
    }
  });
});

test('a list of tasks in one place and the same single task in the other answers in the bulk shape', async () => {
  const { c } = await setup();
  await c.createProject('Web');
  await c.createLabel('Bug');
  const res = await c.post('/projects-labels/bug/attach', { task_uuids: ['t1'] }, { project_slug: 'web', task_uuid: 't1' });
  expect(res.body.data).toEqual([{ task_uuid: 't1', labels: [expect.objectContaining({ slug: 'bug' })] }]);
});
