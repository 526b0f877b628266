import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Named } from '#domain/workspaceRateLimits';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The project, label, task and webhook a valid request names, as its route reads them: a project's routes name it by
 * the path's slug, a label's (and a task's toggle) the label; elsewhere `project_slug` names the project; one task (`task_uuid`,
 * or a list of one) names it; a webhook's routes name it by the path's id. What the workspace's rate limits count
 * a request on (domain/workspaceRateLimits.ts). Read once the request is valid: slugs and task ids have one spelling.
 */
export function namedEntities(event: APIGatewayProxyEvent, body: unknown): Named {
  const path = event.pathParameters ?? {};
  const query = event.queryStringParameters ?? {};
  const sent = (body ?? {}) as Record<string, unknown>;
  const top = event.resource.split('/')[1];
  const tasks = query.task_uuids?.split(',') ?? sent.task_uuids;
  const task = text(query.task_uuid ?? sent.task_uuid) ?? (Array.isArray(tasks) && tasks.length === 1 ? text(tasks[0]) : undefined);
  const named: Named = {};
  const project = top === 'projects' ? path.slug : text(query.project_slug ?? sent.project_slug);
  if (project) named.project = project;
  if ((top === 'projects-labels' || top === 'task-labels') && path.slug) named.label = path.slug;
  if (task) named.task = task;
  if (top === 'webhooks' && path.id) named.webhook = path.id;
  return named;
}
