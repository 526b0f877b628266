import * as z from 'zod/mini';
import { listLabels } from '#domain/labels';
import { projectLabels } from '#domain/projectLabels';
import { labelsOfTask } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { labelView, projectLabelView } from '#http/labelViews';
import { pageMeta, pageRequest, paginationFields, pagingRules, slugParam, taskUuid } from '#http/validation';

const input = z.object({
  query: z.object({ project_slug: z.optional(slugParam), task_uuid: z.optional(taskUuid), ...paginationFields() }).check(
    z.refine((q) => q.task_uuid === undefined || q.project_slug !== undefined, {
      message: 'task_uuid needs project_slug',
      path: ['task_uuid'],
    }),
    z.refine((q) => q.cursor === undefined, {
      message: 'the label list has no cursors: it answers every label (or a page of them with page)',
      path: ['cursor'],
    }),
    pagingRules(),
  ),
});

/**
 * GET /projects-labels: every label of the workspace by title; with `project_slug`, the project's
 * labels (with tasks_count, as GET /task-labels); with `task_uuid` too, the labels of that task.
 * With `page`, one page of the workspace's labels (`per_page`/`limit`, default 50) and its meta;
 * without, the whole list, as the spec answers it.
 */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ query }, { workspace }) => {
    if (query.project_slug === undefined) {
      const labels = (await listLabels(workspace)).map(labelView);
      if (query.page === undefined) return ok(labels);
      const req = pageRequest(query);
      return ok(labels.slice((query.page - 1) * req.limit, query.page * req.limit), pageMeta(req, null));
    }
    if (query.task_uuid === undefined) return ok((await projectLabels(workspace, query.project_slug)).map(projectLabelView));
    return ok((await labelsOfTask(workspace, query.project_slug, query.task_uuid)).map(labelView));
  },
});
