import * as z from 'zod/mini';
import { listLabels } from '#domain/labels';
import { labelsOfTask } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { labelView } from '#http/labelViews';
import { pagination, samePageSize, slugParam, taskUuid } from '#http/validation';

const input = z.object({
  // Paging parameters are checked as on every list, but the whole list is always answered.
  query: z.object({ project_slug: z.optional(slugParam), task_uuid: z.optional(taskUuid), ...pagination }).check(
    z.refine((q) => (q.project_slug === undefined) === (q.task_uuid === undefined), {
      message: 'project_slug and task_uuid go together',
      path: ['task_uuid'],
    }),
    samePageSize,
  ),
});

/** GET /projects-labels: every label of the workspace by title, or the labels of one task. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ query }, { workspace }) => {
    const labels =
      query.project_slug && query.task_uuid
        ? await labelsOfTask(workspace, query.project_slug, query.task_uuid)
        : await listLabels(workspace);
    return ok(labels.map(labelView));
  },
});
