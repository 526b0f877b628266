import * as z from 'zod';
import {
  Label,
  LabelDeleted,
  one,
  page,
  Project,
  ProjectCreated,
  ProjectDeleted,
  ProjectLabel,
  ProjectListItem,
  ProjectStats,
  SearchResults,
  TaskLabels,
  whole,
} from '#wire/answers';
import type { Route, SampleTargets } from './route';
import { activityRoutes } from './activityRoutes';
import { webhookRoutes } from './webhookRoutes';

export type { Route } from './route';

const ws = (t: SampleTargets) => ({ company_slug: t.ws });
const inProject = (t: SampleTargets) => ({ company_slug: t.ws, project_slug: t.project });

/** Attach and detach answer the labels after the call: one task's, per task for task_uuids, or the project's. */
const LABEL_CHANGE = one(z.union([z.array(Label), z.array(TaskLabels), z.array(ProjectLabel)]));
const LABEL_CHANGE_DESCRIPTION = "The task's labels after the call (per task for task_uuids; the project's labels without a task)";

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
    name: 'list-labels',
    method: 'GET',
    path: '/projects-labels',
    handler: 'functions/labels/list.ts',
    scope: 'labels:read',
    access: 'read',
    answer: {
      status: 200,
      schema: z.union([page(Label), whole(Label), page(ProjectLabel), whole(ProjectLabel)]),
      description:
        "The workspace's labels, a project's labels with `project_slug`, a task's with `task_uuid` too: all of them, or a page with `limit`, `per_page`, `page` or `cursor`",
    },
    sample: (t) => ({ path: '/projects-labels', query: ws(t) }),
  },
  {
    name: 'create-label',
    method: 'POST',
    path: '/projects-labels',
    handler: 'functions/labels/create.ts',
    scope: 'labels:write',
    reads: 'labels:read',
    access: 'write',
    answer: { status: 201, schema: one(Label), description: 'The label, created' },
    sample: (t) => ({ path: '/projects-labels', query: ws(t), body: { title: t.newLabel.title, color: t.newLabel.color } }),
  },
  {
    name: 'update-label',
    method: 'PUT',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/update.ts',
    scope: 'labels:write',
    reads: 'labels:read',
    access: 'write',
    answer: { status: 200, schema: one(Label), description: 'The label after the update' },
    tagged: true,
    sample: (t) => ({ path: `/projects-labels/${t.label}`, query: ws(t), body: { color: '#b60205' } }),
  },
  {
    name: 'delete-label',
    method: 'DELETE',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/delete.ts',
    scope: 'labels:write',
    access: 'write',
    answer: { status: 200, schema: one(LabelDeleted), description: 'The label is gone (removed from every task in the background)' },
    sample: (t) => ({ path: `/projects-labels/${t.doomedLabel ?? t.label}`, query: ws(t) }),
  },
  {
    name: 'attach-label',
    method: 'POST',
    path: '/projects-labels/{slug}/attach',
    handler: 'functions/labels/attach.ts',
    scope: 'labels:write',
    reads: 'labels:read',
    access: 'write',
    answer: { status: 200, schema: LABEL_CHANGE, description: LABEL_CHANGE_DESCRIPTION },
    sample: (t) => ({ path: `/projects-labels/${t.label}/attach`, query: inProject(t), body: { task_uuid: t.task } }),
  },
  {
    name: 'detach-label',
    method: 'DELETE',
    path: '/projects-labels/{slug}/detach',
    handler: 'functions/labels/detach.ts',
    scope: 'labels:write',
    reads: 'labels:read',
    access: 'write',
    answer: { status: 200, schema: LABEL_CHANGE, description: LABEL_CHANGE_DESCRIPTION },
    sample: (t) => ({ path: `/projects-labels/${t.label}/detach`, query: inProject(t), body: { task_uuid: t.task } }),
  },
  {
    name: 'label-tasks',
    method: 'GET',
    path: '/projects-labels/{slug}/tasks',
    handler: 'functions/labels/tasks.ts',
    scope: 'labels:read',
    access: 'read',
    answer: { status: 200, schema: page(z.string()), description: 'A page of the task_uuids of the project that carry the label' },
    sample: (t) => ({ path: `/projects-labels/${t.label}/tasks`, query: inProject(t) }),
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
  {
    name: 'get-label',
    method: 'GET',
    path: '/projects-labels/{slug}',
    handler: 'functions/labels/get.ts',
    scope: 'labels:read',
    access: 'read',
    answer: { status: 200, schema: one(Label), description: 'The label' },
    tagged: true,
    sample: (t) => ({ path: `/projects-labels/${t.label}`, query: ws(t) }),
  },
  {
    name: 'project-labels',
    method: 'GET',
    path: '/task-labels',
    handler: 'functions/labels/projectLabels.ts',
    scope: 'labels:read',
    access: 'read',
    answer: {
      status: 200,
      schema: z.union([page(ProjectLabel), whole(ProjectLabel), page(Label), whole(Label)]),
      description:
        "The project's labels, with how many of its tasks carry each (a task's with `task_uuid`), as GET /projects-labels answers them",
    },
    sample: (t) => ({ path: '/task-labels', query: inProject(t) }),
  },
  {
    name: 'toggle-task-label',
    method: 'POST',
    path: '/task-labels/{slug}/toggle',
    handler: 'functions/labels/toggle.ts',
    scope: 'labels:write',
    reads: 'labels:read',
    access: 'write',
    answer: { status: 200, schema: one(z.array(Label)), description: "The task's labels after the call" },
    sample: (t) => ({ path: `/task-labels/${t.label}/toggle`, query: { ...inProject(t), task_uuid: t.task }, body: {} }),
  },
  ...webhookRoutes,
  ...activityRoutes,
];

/** The functions that are not routes: the token authorizer, the table's stream processor (events, counters, cascades,
 * history), the inbound queue's consumer (task, member and sprint events) and the webhook deliverer. */
export const authorizerHandler = 'functions/authorizer/handler.ts';
export const streamProcessorHandler = 'functions/stream/processor.ts';
export const inboundConsumerHandler = 'functions/inbound/consumer.ts';
export const webhookDelivererHandler = 'functions/webhooks/deliverer.ts';
