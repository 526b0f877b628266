import * as z from 'zod/mini';
import { endpoint, noContent } from '#commons/http';
import { deleteProject } from '#commons/projects';
import { slugParam } from '#commons/validation';

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
