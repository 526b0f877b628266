import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { projectListView } from '#commons/projectViews';
import { findProjectsByName, listProjects, MAX_PROJECT_NAME, PROJECT_STATUSES } from '#commons/projects';
import { pageSize, pagination, text } from '#commons/validation';

const input = z.object({
  query: z
    .object({
      status: z.optional(z.enum(PROJECT_STATUSES)),
      name: z.optional(text(1, MAX_PROJECT_NAME)),
      ...pagination,
    })
    .check(z.refine((q) => !(q.name !== undefined && q.status !== undefined), { message: 'name and status cannot be combined', path: ['name'] })),
});

/** GET /projects: the workspace's projects (optionally by status), or find by name when `name` is given. */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ query }, { workspace }) => {
    const opts = { limit: pageSize(query), cursor: query.cursor };
    const page =
      query.name !== undefined
        ? await findProjectsByName(workspace, query.name, opts)
        : await listProjects(workspace, { ...opts, status: query.status });
    return ok(page.items.map(projectListView), { limit: opts.limit, next_cursor: page.nextCursor });
  },
});
