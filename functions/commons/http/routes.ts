import { one, page, Project, ProjectCreated, ProjectDeleted, ProjectListItem, ProjectStats, SearchResults } from '#wire/answers';
import type { Route, SampleTargets } from './route';
import { activityRoutes } from './activityRoutes';
import { labelRoutes } from './labelRoutes';
import { webhookRoutes } from './webhookRoutes';

export type { Route } from './route';

const ws = (t: SampleTargets) => ({ company_slug: t.ws });

/**
 * Every endpoint of the service, each row all there is to know of it outside its handler: the CDK
 * stack, the local server, the OpenAPI document, the sample events and the tests all read this
 * table. Adding an endpoint is one row here, one handler module and one use case.
 */
export const routes: readonly Route[] = [
  {
    name: 'list-projects',
    method: 'GET',
    path: '/projects',
    handler: 'functions/projects/list.ts',
    scope: 'projects:read',
    access: 'read',
    answer: { status: 200, schema: page(ProjectListItem), description: 'A page of projects' },
    sample: (t) => ({ path: '/projects', query: { ...ws(t), status: 'in_progress', limit: '20' } }),
  },
  {
    name: 'create-project',
    method: 'POST',
    path: '/projects',
    handler: 'functions/projects/create.ts',
    scope: 'projects:write',
    reads: 'projects:read',
    access: 'write',
    answer: { status: 201, schema: one(ProjectCreated), description: 'The project, created' },
    sample: (t) => ({
      path: '/projects',
      body: { company_slug: t.ws, name: 'Mobile App', description: 'iOS and Android clients', visibility: 'private' },
    }),
  },
  {
    name: 'get-project',
    method: 'GET',
    path: '/projects/{slug}',
    handler: 'functions/projects/get.ts',
    scope: 'projects:read',
    access: 'read',
    answer: { status: 200, schema: one(Project), description: 'The project' },
    tagged: true,
    sample: (t) => ({ path: `/projects/${t.project}`, query: ws(t) }),
  },
  {
    name: 'update-project',
    method: 'PUT',
    path: '/projects/{slug}',
    handler: 'functions/projects/update.ts',
    scope: 'projects:write',
    reads: 'projects:read',
    access: 'write',
    answer: { status: 200, schema: one(Project), description: 'The project after the update' },
    tagged: true,
    sample: (t) => ({
      path: `/projects/${t.project}`,
      body: { company_slug: t.ws, description: 'New public website, launch in Q3', visibility: 'public' },
    }),
  },
  {
    name: 'delete-project',
    method: 'DELETE',
    path: '/projects/{slug}',
    handler: 'functions/projects/delete.ts',
    scope: 'projects:write',
    access: 'write',
    answer: {
      status: 200,
      schema: one(ProjectDeleted),
      description: 'The project is gone (its tasks, links and label set are removed in the background)',
    },
    sample: (t) => ({ path: `/projects/${t.doomedProject ?? t.project}`, query: ws(t) }),
  },
  {
    name: 'duplicate-project',
    method: 'POST',
    path: '/projects/{slug}/duplicate',
    handler: 'functions/projects/duplicate.ts',
    scope: 'projects:write',
    reads: 'projects:read',
    access: 'write',
    answer: { status: 201, schema: one(Project), description: 'The copy, created' },
    sample: (t) => ({ path: `/projects/${t.project}/duplicate`, query: ws(t) }),
  },
  {
    name: 'project-stats',
    method: 'GET',
    path: '/projects/{slug}/stats',
    handler: 'functions/projects/stats.ts',
    scope: 'projects:read',
    access: 'read',
    answer: { status: 200, schema: one(ProjectStats), description: "The project's statistics" },
    sample: (t) => ({ path: `/projects/${t.project}/stats`, query: ws(t) }),
  },
  {
    name: 'search',
    method: 'GET',
    path: '/search',
    handler: 'functions/search/search.ts',
    scope: 'projects:read',
    access: 'read',
    answer: { status: 200, schema: one(SearchResults), description: 'Hits per category (projects; the other categories answer empty)' },
    sample: (t) => ({ path: '/search', query: { q: t.project, ...ws(t), categories: 'projects', limit: '5' } }),
  },
  ...labelRoutes,
  ...webhookRoutes,
  ...activityRoutes,
];

/** The functions that are not routes: the token authorizer, the table's stream processor (events, counters, cascades,
 * history), the inbound queue's consumer (task, member and sprint events) and the webhook deliverer. */
export const authorizerHandler = 'functions/authorizer/handler.ts';
export const streamProcessorHandler = 'functions/stream/processor.ts';
export const inboundConsumerHandler = 'functions/inbound/consumer.ts';
export const webhookDelivererHandler = 'functions/webhooks/deliverer.ts';
