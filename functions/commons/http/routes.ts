import type { Scope } from '#domain/scopes';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  /** Function name, sample event name stem and log name. */
  name: string;
  method: HttpMethod;
  /** API Gateway resource path, `{param}` for path parameters. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  scope: Scope;
  /** Read routes get read-only table grants. */
  access: 'read' | 'write';
}

/**
 * Every endpoint of the service. The local server, the CDK stack, the sample events and the tests
 * all read this table: adding an endpoint is one row here plus one handler module.
 */
export const routes: readonly Route[] = [
  {
    name: 'list-projects',
    method: 'GET',
    path: '/projects',
    handler: 'functions/projects/list.ts',
    scope: 'projects:read',
    access: 'read',
  },
  {
    name: 'create-project',
    method: 'POST',
    path: '/projects',
    handler: 'functions/projects/create.ts',
    scope: 'projects:write',
    access: 'write',
  },
  {
    name: 'get-project',
    method: 'GET',
    path: '/projects/{slug}',
    handler: 'functions/projects/get.ts',
    scope: 'projects:read',
    access: 'read',
  },
  {
    name: 'update-project',
    method: 'PUT',
    path: '/projects/{slug}',
    handler: 'functions/projects/update.ts',
    scope: 'projects:write',
    access: 'write',
  },
  {
    name: 'delete-project',
    method: 'DELETE',
    path: '/projects/{slug}',
    handler: 'functions/projects/delete.ts',
    scope: 'projects:write',
    access: 'write',
  },
  {
    name: 'duplicate-project',
    method: 'POST',
    path: '/projects/{slug}/duplicate',
    handler: 'functions/projects/duplicate.ts',
    scope: 'projects:write',
    access: 'write',
  },
  {
    name: 'project-stats',
    method: 'GET',
    path: '/projects/{slug}/stats',
    handler: 'functions/projects/stats.ts',
    scope: 'projects:read',
    access: 'read',
  },
  {
    name: 'list-labels',
    method: 'GET',
    path: '/projects-labels',
    handler: 'functions/labels/list.ts',
    scope: 'labels:read',
    access: 'read',
  },
  {
    name: 'create-label',
    method: 'POST',
    path: '/projects-labels',
    handler: 'functions/labels/create.ts',
    scope: 'labels:write',
    access: 'write',
  },
  {
    name: 'update-label',
    method: 'PUT',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/update.ts',
    scope: 'labels:write',
    access: 'write',
  },
  {
    name: 'delete-label',
    method: 'DELETE',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/delete.ts',
    scope: 'labels:write',
    access: 'write',
  },
  {
    name: 'attach-label',
    method: 'POST',
    path: '/projects-labels/{slug}/attach',
    handler: 'functions/labels/attach.ts',
    scope: 'labels:write',
    access: 'write',
  },
  {
    name: 'detach-label',
    method: 'DELETE',
    path: '/projects-labels/{slug}/detach',
    handler: 'functions/labels/detach.ts',
    scope: 'labels:write',
    access: 'write',
  },
  {
    name: 'label-tasks',
    method: 'GET',
    path: '/projects-labels/{slug}/tasks',
    handler: 'functions/labels/tasks.ts',
    scope: 'labels:read',
    access: 'read',
  },
  {
    name: 'search',
    method: 'GET',
    path: '/search',
    handler: 'functions/projects/search.ts',
    scope: 'projects:read',
    access: 'read',
  },
  {
    name: 'get-label',
    method: 'GET',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/get.ts',
    scope: 'labels:read',
    access: 'read',
  },
  {
    name: 'project-labels',
    method: 'GET',
    path: '/task-labels',
    handler: 'functions/labels/project.ts',
    scope: 'labels:read',
    access: 'read',
  },
  {
    name: 'toggle-task-label',
    method: 'POST',
    path: '/task-labels/{slug}/toggle',
    handler: 'functions/labels/toggle.ts',
    scope: 'labels:write',
    access: 'write',
  },
];

/** The token authorizer is not a route: API Gateway calls it before every route. */
export const authorizerHandler = 'functions/authorizer/handler.ts';

/** The table's stream processor: outbound events, derived counters, delete cascades (not a route). */
export const streamProcessorHandler = 'functions/stream/processor.ts';

/** The inbound queue's consumer: task, member and sprint events from the rest of the product (not a route). */
export const inboundConsumerHandler = 'functions/inbound/consumer.ts';

/** Matches a concrete path against a route template; returns the path parameters or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      if (!p[i]) return null;
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(p[i]!);
      } catch {
        return null;
      }
    } else if (seg !== p[i]) return null;
  }
  return params;
}
