import * as z from 'zod/mini';
import { tasksWithLabel } from '#domain/labelTasks';
import { endpoint, ok } from '#http/endpoint';
import { pageMeta, pageRequest, paginationFields, pagingRules, projectSlugParam, slugParam } from '#wire/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  query: z.object({ project_slug: projectSlugParam, ...paginationFields() }).check(pagingRules()),
});

/** GET /projects-labels/{slug}/tasks: the task_uuids of a project that carry the label, paginated. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ path, query }, { workspace }) => {
    const req = pageRequest(query);
    const page = await tasksWithLabel(workspace, path.slug, query.project_slug, req);
    return ok(page.items, pageMeta(req, page.nextCursor));
  },
});
