import * as z from 'zod/mini';
import { toggleTaskLabel } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { labelView } from '#http/labelViews';
import { slugParam, taskUuid } from '#http/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  query: z.object({ project_slug: slugParam, task_uuid: taskUuid }),
});

/** POST /task-labels/{slug}/toggle: attaches the label to the task when absent, detaches it when present; 200 with the task's labels. */
export const handler = endpoint({
  scope: 'labels:write',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path, query }, { workspace, principal }) =>
    ok((await toggleTaskLabel(workspace, path.slug, query.project_slug, query.task_uuid, principal.owner)).map(labelView)),
});
