import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Named } from '#domain/workspaceRateLimits';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The project, label, task and webhook a valid request names, as its route reads them: a project's routes name it by
 * the path's slug (not a duplicate: it writes the copy's partitions), a label's (and a task's toggle) the label;
 * elsewhere `project_slug` names the project, where the route reads that project's partitions by it (the history only
 * with `from_context=project` and no `project_id` or task); one task (`task_uuid`, or a list of one) names it; a
 * webhook's routes name it by the path's id. What the workspace's rate limits count a request on
 * (domain/workspaceRateLimits.ts): a request that names none of a kind is counted against all of that kind, so naming
 * less is never looser. Read once the request is valid: slugs and task ids have one spelling.
 */
export function namedEntities(event: APIGatewayProxyEvent, body: unknown): Named {
  const path = event.pathParameters ?? {};
  const query = event.queryStringParameters ?? {};
  const sent = (event.httpMethod === 'GET' ? {} : (body ?? {})) as Record<string, unknown>;
  const [, top, , action] = event.resource.split('/');
  const tasks = query.task_uuids?.split(',') ?? sent.task_uuids;
  const task = text(query.task_uuid ?? sent.task_uuid) ?? (Array.isArray(tasks) && tasks.length === 1 ? text(tasks[0]) : undefined);
  const named: Named = {};
  const project = top === 'projects' ? (action === 'duplicate' ? undefined : path.slug) : projectRead(top, query, sent);
  if (project) named.project = project;
  if ((top === 'projects-labels' || top === 'task-labels') && path.slug) named.label = path.slug;
  if (task) named.task = task;
  if (top === 'webhooks' && path.id) named.webhook = path.id;
  return named;
}

/** The project `project_slug` names where the route reads it by that slug: the history only in its project context. */
function projectRead(top: string | undefined, query: Record<string, string | undefined>, sent: Record<string, unknown>) {
  if (top !== 'activities') return text(query.project_slug ?? sent.project_slug);
  const ownHistory = query.from_context === 'project' && query.project_id === undefined && query.uuid === undefined;
  return ownHistory ? text(query.project_slug) : undefined;
}
