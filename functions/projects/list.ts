import * as z from 'zod/mini';
import { findProjectsByName, listProjects } from '#domain/projects';
import { endpoint, ok } from '#http/endpoint';
import { projectName, projectStatus } from '#wire/projectSchemas';
import { projectListView } from '#wire/projectViews';
import { pageMeta, pageRequest, paginationFields, pagingRules } from '#wire/validation';

const input = z.object({
  query: z
    .object({
      status: z.optional(projectStatus),
      name: z.optional(projectName),
      ...paginationFields(),
    })
    .check(
      z.refine((q) => !(q.name !== undefined && q.status !== undefined), {
        message: 'cannot be combined with status; find by name, or list by status',
        path: ['name'],
      }),
      pagingRules(),
    ),
});

/** GET /projects: the workspace's projects (optionally by status), or find by name when `name` is given. */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ query }, { workspace }) => {
    const req = pageRequest(query);
    const page =
      query.name !== undefined
        ? await findProjectsByName(workspace, query.name, req)
        : await listProjects(workspace, { ...req, status: query.status });
    return ok(page.items.map(projectListView), pageMeta(req, page.nextCursor));
  },
});
