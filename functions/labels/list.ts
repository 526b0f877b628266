import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { labelView, listLabels } from '#commons/labels';
import { labelsOfTask } from '#commons/links';
import { getProject } from '#commons/projects';
import { slugParam, taskUuid } from '#commons/validation';

const input = z.object({
  query: z
    .object({ project_slug: z.optional(slugParam), task_uuid: z.optional(taskUuid) })
    .check(
      z.refine((q) => (q.project_slug === undefined) === (q.task_uuid === undefined), {
        message: 'project_slug and task_uuid go together',
        path: ['task_uuid'],
      }),
    ),
});

/** GET /projects-labels: every label of the workspace by title, or the labels of one task. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ query }, { workspace }) => {
    if (query.project_slug && query.task_uuid) {
      const project = await getProject(workspace, query.project_slug);
      return ok(await labelsOfTask(workspace, project.id, query.task_uuid));
    }
    return ok((await listLabels(workspace)).map(labelView));
  },
});
