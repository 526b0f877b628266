import { changeLabels } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { linkInput, linkTasks } from '#wire/linkSchemas';
import { labelChangeView } from '#wire/labelViews';

/**
 * POST /projects-labels/{slug}/attach: idempotent. With a task (`task_uuid` or `task_uuids`, in the body
 * or the query string) 200 with its labels after the call; without one, the project's label set changes
 * and the answer is the project's labels.
 */
export const handler = endpoint({
  scope: 'labels:write',
  reads: 'labels:read',
  idempotency: idempotencyKeys,
  input: linkInput,
  run: async (input, { workspace, actor }) =>
    ok(
      labelChangeView(
        await changeLabels(
          'attach',
          workspace,
          { labelSlug: input.path.slug, projectSlug: input.query.project_slug, ...linkTasks(input) },
          actor,
        ),
      ),
    ),
});
