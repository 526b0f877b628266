import * as z from 'zod';
import { Label, LabelDeleted, one, page, ProjectLabel, TaskLabels, whole } from '#wire/answers';
import type { Route, SampleTargets } from './route';

const ws = (t: SampleTargets) => ({ company_slug: t.ws });
const inProject = (t: SampleTargets) => ({ company_slug: t.ws, project_slug: t.project });

/** Attach and detach answer the labels after the call: one task's, per task for task_uuids, or the project's. */
const LABEL_CHANGE = one(z.union([z.array(Label), z.array(TaskLabels), z.array(ProjectLabel)]));
const LABEL_CHANGE_DESCRIPTION = "The task's labels after the call (per task for task_uuids; the project's labels without a task)";
/** Which of those an attach or a detach answers: by the tasks it names. */
const LABEL_CHANGE_CHOICE = {
  items: [
    ['task_uuids', 'TaskLabels'],
    ['task_uuid', 'Label'],
  ],
  otherwise: 'ProjectLabel',
} as const;

/**
 * What a label list answers (http/labelLists.ts): a page when a paging parameter is given, else every label; a
 * task's labels with `task_uuid`, a project's (with tasks_count) with `project_slug` alone, else the workspace's.
 */
const LABEL_LIST_CHOICE = {
  paged: ['limit', 'per_page', 'page', 'cursor'],
  items: [
    ['task_uuid', 'Label'],
    ['project_slug', 'ProjectLabel'],
  ],
  otherwise: 'Label',
} as const;

/** The labels' routes: rows of the route table (routes.ts), with the same meaning as every other row. */
export const labelRoutes: readonly Route[] = [
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
    answerChoice: LABEL_LIST_CHOICE,
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
    answerChoice: LABEL_CHANGE_CHOICE,
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
    answerChoice: LABEL_CHANGE_CHOICE,
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
    answerChoice: LABEL_LIST_CHOICE,
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
];
