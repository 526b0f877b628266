import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { getLabel } from '#commons/labels';
import { tasksWithLabel } from '#commons/links';
import { getProject } from '#commons/projects';
import { pageSize, pagination, slugParam } from '#commons/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  query: z.object({ project_slug: slugParam, ...pagination }),
});

/** GET /projects-labels/{slug}/tasks: the task_uuids of a project that carry the label, paginated. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ path, query }, { workspace }) => {
    const [label, project] = await Promise.all([getLabel(workspace, path.slug), getProject(workspace, query.project_slug)]);
    const limit = pageSize(query);
    const page = await tasksWithLabel(workspace, project.id, label.id, { limit, cursor: query.cursor });
    return ok(page.items, { limit, next_cursor: page.nextCursor });
  },
});
