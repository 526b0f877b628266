import * as z from 'zod/mini';
import { endpoint, noContent } from '#http/endpoint';
import { deleteProject } from '#domain/projects';
import { slugParam } from '#http/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** DELETE /projects/{slug}: the project and everything that belongs to it. 204. */
export const handler = endpoint({
  scope: 'projects:write',
  input,
  run: async ({ path }, { workspace }) => {
    await deleteProject(workspace, path.slug);
    return noContent();
  },
});
