import * as z from 'zod/mini';
import { toggleTaskLabel } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { labelView } from '#wire/labelViews';
import { slugParam, taskUuid } from '#wire/validation';

/** `project_slug` in the query; `task_uuid` in the query (as GitScrum's client sends it) or the body; both and different: 422. */
const input = z
  .object({
    path: z.object({ slug: slugParam }),
    query: z.object({ project_slug: slugParam, task_uuid: z.optional(taskUuid) }),
    body: z.object({ task_uuid: z.optional(taskUuid) }),
  })
  .check(
    z.refine(({ query, body }) => query.task_uuid !== undefined || body.task_uuid !== undefined, {
      message: 'is required',
      path: ['query', 'task_uuid'],
    }),
    z.refine(({ query, body }) => query.task_uuid === undefined || body.task_uuid === undefined || query.task_uuid === body.task_uuid, {
      message: 'differs between the query string and the body',
      path: ['body', 'task_uuid'],
    }),
  );

/** POST /task-labels/{slug}/toggle: attaches the label to the task when absent, detaches it when present; 200 with the task's labels. */
export const handler = endpoint({
  scope: 'labels:write',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path, query, body }, { workspace, principal }) =>
    ok(
      (await toggleTaskLabel(workspace, path.slug, query.project_slug, (query.task_uuid ?? body.task_uuid)!, principal.owner)).map(
        labelView,
      ),
    ),
});
