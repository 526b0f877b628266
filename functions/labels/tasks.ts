import * as z from 'zod/mini';
import { tasksWithLabel } from '#domain/taskLabels';
import { endpoint, ok } from '#http/endpoint';
import { pageSize, pagination, samePageSize, slugParam } from '#http/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  query: z.object({ project_slug: slugParam, ...pagination }).check(samePageSize),
});

/** GET /projects-labels/{slug}/tasks: the task_uuids of a project that carry the label, paginated. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ path, query }, { workspace }) => {
    const limit = pageSize(query);
    const page = await tasksWithLabel(workspace, path.slug, query.project_slug, { limit, cursor: query.cursor });
    return ok(page.items, { limit, next_cursor: page.nextCursor });
  },
});
