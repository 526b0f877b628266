import * as z from 'zod/mini';
import { listLabels } from '#domain/labels';
import { projectLabels } from '#domain/projectLabels';
import { labelsOfTask } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { labelView, projectLabelView } from '#http/labelViews';
import { pagination, pagingRules, slugParam, taskUuid } from '#http/validation';

const input = z.object({
  // Paging parameters are checked as on every list, but the whole list is always answered.
  query: z.object({ project_slug: z.optional(slugParam), task_uuid: z.optional(taskUuid), ...pagination }).check(
    z.refine((q) => q.task_uuid === undefined || q.project_slug !== undefined, {
      message: 'task_uuid needs project_slug',
      path: ['task_uuid'],
    }),
    pagingRules,
  ),
});

/**
 * GET /projects-labels: every label of the workspace by title; with `project_slug`, the project's
 * labels (with tasks_count, as GET /task-labels); with `task_uuid` too, the labels of that task.
 */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ query }, { workspace }) => {
    if (query.project_slug === undefined) return ok((await listLabels(workspace)).map(labelView));
    if (query.task_uuid === undefined) return ok((await projectLabels(workspace, query.project_slug)).map(projectLabelView));
    return ok((await labelsOfTask(workspace, query.project_slug, query.task_uuid)).map(labelView));
  },
});
