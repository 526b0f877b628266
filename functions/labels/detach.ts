import { changeTaskLabels } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { linkInput } from '#http/labelSchemas';
import { taskLabelsView } from '#http/labelViews';

/** DELETE /projects-labels/{slug}/detach: idempotent; 200 with the task's labels after the call. */
export const handler = endpoint({
  scope: 'labels:write',
  input: linkInput,
  run: async ({ path, query, body }, { workspace }) =>
    ok(
      taskLabelsView(
        await changeTaskLabels('detach', workspace, {
          labelSlug: path.slug,
          projectSlug: query.project_slug,
          taskUuid: body.task_uuid,
          taskUuids: body.task_uuids,
        }),
      ),
    ),
});
