import { endpoint, ok } from '#commons/http';
import { changeTaskLabels } from '#commons/labelLinks';
import { linkInput } from '#commons/labelSchemas';

/** POST /projects-labels/{slug}/attach: idempotent; 200 with the task's labels after the call. */
export const handler = endpoint({
  scope: 'labels:write',
  input: linkInput,
  run: async ({ path, query, body }, { workspace }) =>
    ok(
      await changeTaskLabels('attach', workspace, {
        labelSlug: path.slug,
        projectSlug: query.project_slug,
        taskUuid: body.task_uuid,
        taskUuids: body.task_uuids,
      }),
    ),
});
