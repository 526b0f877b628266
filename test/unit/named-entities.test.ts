import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, test } from 'vitest';
import { namedEntities } from '#http/namedEntities';

/** What the workspace's rate limits count a valid request on (http/namedEntities.ts), route by route. */
const request = (resource: string, path: Record<string, string>, query: Record<string, string> = {}) =>
  ({ resource, pathParameters: path, queryStringParameters: query }) as unknown as APIGatewayProxyEvent;

describe('the things a request names', () => {
  test.each([
    ['a project by its path', request('/projects/{slug}', { slug: 'web' }), undefined, { project: 'web' }],
    ['a project duplicated', request('/projects/{slug}/duplicate', { slug: 'web' }), { name: 'Web 2' }, { project: 'web' }],
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
    ["a project's labels", request('/task-labels', {}, { project_slug: 'web' }), undefined, { project: 'web' }],
    ["a project's history", request('/activities', {}, { project_slug: 'web' }), undefined, { project: 'web' }],
    ['a webhook by its path', request('/webhooks/{id}/deliveries', { id: 'wh_1' }), undefined, { webhook: 'wh_1' }],
    ['a project create names none', request('/projects', {}), { name: 'Web' }, {}],
    ['the labels list names none', request('/projects-labels', {}), undefined, {}],
  ])('%s', (_, event, body, named) => {
    expect(namedEntities(event, body)).toEqual(named);
  });
});
