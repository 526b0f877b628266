import * as z from 'zod/mini';
import { toggleTaskLabel } from '#domain/taskLabels';
import { quoted } from '#domain/quoted';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { labelView } from '#wire/labelViews';
import { projectSlugParam, slugParam, taskUuid } from '#wire/validation';

/** `project_slug` in the query; `task_uuid` in the query (as GitScrum's client sends it) or the body; both and different: 422. */
const input = z
  .object({
    path: z.object({ slug: slugParam }),
    query: z.object({ project_slug: projectSlugParam, task_uuid: z.optional(taskUuid) }),
    body: z.object({ task_uuid: z.optional(taskUuid) }),
  })
  .check(
    z.refine(({ query, body }) => query.task_uuid !== undefined || body.task_uuid !== undefined, {
      message: "is required: the task's id, in the query string or the body",
      path: ['query', 'task_uuid'],
    }),
    z.superRefine(({ query, body }, ctx) => {
      if (query.task_uuid === undefined || body.task_uuid === undefined || query.task_uuid === body.task_uuid) return;
      const message = `in the body differs from ${quoted(query.task_uuid)} in the query string; send it in one place, or the same in both`;
      ctx.addIssue({ code: 'custom', message, path: ['body', 'task_uuid'], input: body.task_uuid });
    }),
  );

/** POST /task-labels/{slug}/toggle: attaches the label to the task when absent, detaches it when present; 200 with the task's labels. */
export const handler = endpoint({
  scope: 'labels:write',
  reads: 'labels:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path, query, body }, { workspace, actor }) =>
    ok((await toggleTaskLabel(workspace, path.slug, query.project_slug, (query.task_uuid ?? body.task_uuid)!, actor)).map(labelView)),
});
