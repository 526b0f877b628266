import { beforeAll, expect, test } from 'vitest';
import { workspaceClient, type WorkspaceClient } from '#support/api';

/**
 * A refused request says what is wrong in words a person reads: each error names its field, the value
 * it refuses and the rule (`visibility: "secret" is not allowed; use one of: public, private`), or
 * what a missing field takes ("project_slug is required: the project's slug, e.g. website-redesign"),
 * never the validator's own text ("Invalid input: expected string, received undefined").
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
  [
    'a project without a name',
    () => c.post('/projects', { company_slug: c.ws }),
    { name: 'name is required: text of 1 to 255 characters' },
  ],
  [
    'a name that is a number',
    () => c.post('/projects', { company_slug: c.ws, name: 42 }),
    { name: 'name: 42 is a number; use text of 1 to 255 characters' },
  ],
  [
    'an unknown visibility',
    () => c.post('/projects', { company_slug: c.ws, name: 'X', visibility: 'secret' }),
    { visibility: 'visibility: "secret" is not allowed; use one of: public, private' },
  ],
  [
    'an unknown workflow',
    () => c.put('/projects/web', { settings: { default_workflow: 'waterfall' } }),
    { 'settings.default_workflow': 'settings.default_workflow: "waterfall" is not allowed; use one of: kanban, scrum' },
  ],
  [
    'a label without a color',
    () => c.post('/projects-labels', { title: 'X' }),
    { color: 'color is required: six hex digits, e.g. FF5733' },
  ],
  [
    'a title of 51 characters',
    () => c.post('/projects-labels', { title: 'x'.repeat(51), color: 'FF0000' }),
    { title: `title: "${'x'.repeat(40)}…" is too long (51 characters); use 1 to 50 characters` },
  ],
  [
    'an attach without its project',
    () => c.post('/projects-labels/bug/attach', { task_uuid: 't1' }),
    { project_slug: "project_slug is required: the project's slug, e.g. website-redesign" },
  ],
  [
    'an empty task list',
    () => c.post('/projects-labels/bug/attach', { task_uuids: [] }, { project_slug: 'web' }),
    { task_uuids: 'task_uuids: [] is empty; list 1 to 100 task ids' },
  ],
  [
    'a task id that is a number',
    () => c.post('/projects-labels/bug/attach', { task_uuids: ['t1', 7] }, { project_slug: 'web' }),
    {
      'task_uuids[1]':
        'task_uuids[1]: 7 is a number; use a task id of 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
    },
  ],
  [
    'a limit of 1000',
    () => c.get('/projects', { limit: '1000' }),
    { limit: 'limit: "1000" is out of range; use an integer from 1 to 100' },
  ],
  ['a search without q', () => c.get('/search'), { q: 'q is required: text of 1 to 255 characters' }],
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
