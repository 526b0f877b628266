import * as z from 'zod/mini';
import { deleteProject } from '#domain/projects';
import { endpoint, ok } from '#http/endpoint';
import { slugParam } from '#http/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** DELETE /projects/{slug}: the project and everything that belongs to it. 200 `{ slug, deleted: true }`. */
export const handler = endpoint({
  scope: 'projects:write',
  input,
  run: async ({ path }, { workspace, principal }) => {
    const project = await deleteProject(workspace, path.slug, principal.owner);
    return ok({ slug: project.slug, deleted: true });
  },
});
