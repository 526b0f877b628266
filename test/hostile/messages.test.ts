import { beforeAll, expect, test } from 'vitest';
import { workspaceClient, type WorkspaceClient } from '#support/api';

/**
 * A refused request says what is wrong in words a person reads: each error names its field and the
 * rule ("project_slug is required"), never the validator's own text ("Invalid input: expected string,
 * received undefined").
 */
let c: WorkspaceClient;
beforeAll(async () => {
  c = await workspaceClient('msg');
  await c.createProject('Web');
  await c.createLabel('Bug');
});

const JARGON = /invalid input|expected|received|too (big|small)|nan|undefined|<|>|\bregex\b|\bzod\b/i;

type Case = [string, () => Promise<{ status: number; body: any }>, Record<string, string>];
const cases: Case[] = [
  ['a project without a name', () => c.post('/projects', { company_slug: c.ws }), { name: 'name is required' }],
  ['a name that is a number', () => c.post('/projects', { company_slug: c.ws, name: 42 }), { name: 'name must be text' }],
  [
    'an unknown visibility',
    () => c.post('/projects', { company_slug: c.ws, name: 'X', visibility: 'secret' }),
    { visibility: 'visibility must be one of: public, private' },
  ],
  [
    'an unknown workflow',
    () => c.put('/projects/web', { settings: { default_workflow: 'waterfall' } }),
    { 'settings.default_workflow': 'settings.default_workflow must be one of: kanban, scrum' },
  ],
  ['a label without a color', () => c.post('/projects-labels', { title: 'X' }), { color: 'color is required' }],
  [
    'a title of 51 characters',
    () => c.post('/projects-labels', { title: 'x'.repeat(51), color: 'FF0000' }),
    { title: 'title must have at most 50 characters' },
  ],
  [
    'an attach without its project',
    () => c.post('/projects-labels/bug/attach', { task_uuid: 't1' }),
    { project_slug: 'project_slug is required' },
  ],
  [
    'an empty task list',
    () => c.post('/projects-labels/bug/attach', { task_uuids: [] }, { project_slug: 'web' }),
    { task_uuids: 'task_uuids must not be empty' },
  ],
  [
    'a task id that is a number',
    () => c.post('/projects-labels/bug/attach', { task_uuids: ['t1', 7] }, { project_slug: 'web' }),
    { 'task_uuids[1]': 'task_uuids[1] must be text' },
  ],
  ['a limit of 1000', () => c.get('/projects', { limit: '1000' }), { limit: 'limit must be at most 100' }],
  ['a search without q', () => c.get('/search'), { q: 'q is required' }],
];

test.each(cases)('%s: 422, each error naming its field and the rule in plain words', async (_name, send, expected) => {
  const res = await send();
  expect(res.status).toBe(422);
  for (const e of res.body.errors as { field: string; message: string }[]) {
    expect(e.message, e.field).toContain(e.field);
    expect(e.message, e.field).not.toMatch(JARGON);
  }
  expect(Object.fromEntries(res.body.errors.map((e: { field: string; message: string }) => [e.field, e.message]))).toMatchObject(expected);
  // The problem's detail is the same sentences.
  for (const message of Object.values(expected)) expect(res.body.detail).toContain(message);
});
