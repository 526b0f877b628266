import { changeLabels } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { linkInput, linkTasks } from '#wire/linkSchemas';
import { ifMatchCheck } from '#http/etags';
import { labelChangeView, labelView } from '#wire/labelViews';

/**
 * DELETE /projects-labels/{slug}/detach: idempotent. With a task (`task_uuid` or `task_uuids`, in the body
 * or the query string) 200 with its labels after the call; without one, the project's label set changes
 * and the answer is the project's labels. If-Match names the label's ETag (GET /projects-labels/{slug}):
 * 412 and nothing detached unless it is current.
 */
export const handler = endpoint({
  scope: 'labels:write',
  reads: 'labels:read',
  input: linkInput,
  run: async (input, { workspace, actor, ifMatch }) =>
    ok(
      labelChangeView(
        await changeLabels(
          'detach',
          workspace,
          { labelSlug: input.path.slug, projectSlug: input.query.project_slug, ...linkTasks(input) },
          actor,
          ifMatchCheck(ifMatch, labelView),
        ),
      ),
    ),
});
