import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, test } from 'vitest';
import { namedEntities } from '#http/namedEntities';

/** What the workspace's rate limits count a valid request on (http/namedEntities.ts), route by route. */
const request = (resource: string, path: Record<string, string>, query: Record<string, string> = {}, httpMethod = 'POST') =>
  ({ resource, httpMethod, pathParameters: path, queryStringParameters: query }) as unknown as APIGatewayProxyEvent;

describe('the things a request names', () => {
  test.each([
    ['a project by its path', request('/projects/{slug}', { slug: 'web' }), undefined, { project: 'web' }],
    // A duplicate writes the copy's partitions, not the source's: it names no project (counted against every bucket).
    ['a project duplicated names none', request('/projects/{slug}/duplicate', { slug: 'web' }), { name: 'Web 2' }, {}],
    [
      'an attach: its label, its project and its one task',
      request('/projects-labels/{slug}/attach', { slug: 'bug' }, { project_slug: 'web' }),
      { task_uuid: 't-1' },
      { project: 'web', label: 'bug', task: 't-1' },
    ],
    [
      'a bulk attach of one task names it',
      request('/projects-labels/{slug}/attach', { slug: 'bug' }, { project_slug: 'web' }),
      { task_uuids: ['t-1'] },
      { project: 'web', label: 'bug', task: 't-1' },
    ],
    [
      'a bulk attach of two names no task',
      request('/projects-labels/{slug}/attach', { slug: 'bug' }, { project_slug: 'web' }),
      { task_uuids: ['t-1', 't-2'] },
      { project: 'web', label: 'bug' },
    ],
    [
      'a detach of tasks in the query names no task',
      request('/projects-labels/{slug}/detach', { slug: 'bug' }, { project_slug: 'web', task_uuids: 't-1,t-2' }),
      undefined,
      { project: 'web', label: 'bug' },
    ],
    [
      'a toggle: its label, project and task',
      request('/task-labels/{slug}/toggle', { slug: 'bug' }, { project_slug: 'web', task_uuid: 't-9' }),
      undefined,
      { project: 'web', label: 'bug', task: 't-9' },
    ],
    ["a project's labels", request('/task-labels', {}, { project_slug: 'web' }, 'GET'), undefined, { project: 'web' }],
    [
      "a project's history",
      request('/activities', {}, { from_context: 'project', project_slug: 'web' }, 'GET'),
      undefined,
      { project: 'web' },
    ],
    // The history read elsewhere than the project's own by its slug: the slug does not say which partition it reads.
    [
      'the history by project id names none',
      request(
        '/activities',
        {},
        { from_context: 'project', project_slug: 'web', project_id: '0b7e4a4e-5c1c-4a38-9d9f-1d2f0e3c4b5a' },
        'GET',
      ),
      undefined,
      {},
    ],
    [
      "a task's history names no project",
      request('/activities', {}, { from_context: 'project', project_slug: 'web', uuid: 't-1' }, 'GET'),
      undefined,
      {},
    ],
    [
      "the workspace's history names none",
      request('/activities', {}, { from_context: 'company', project_slug: 'web' }, 'GET'),
      undefined,
      {},
    ],
    ['a GET body names nothing', request('/task-labels', {}, {}, 'GET'), { project_slug: 'web' }, {}],
    ['a webhook by its path', request('/webhooks/{id}/deliveries', { id: 'wh_1' }, {}, 'GET'), undefined, { webhook: 'wh_1' }],
    ['a project create names none', request('/projects', {}), { name: 'Web' }, {}],
    ['the labels list names none', request('/projects-labels', {}), undefined, {}],
  ])('%s', (_, event, body, named) => {
    expect(namedEntities(event, body)).toEqual(named);
  });
});
