import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { projectFullView } from '#commons/projectViews';
import { getProject } from '#commons/projects';
import { slugParam } from '#commons/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects/{slug}: one project, full shape. */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ path }, { workspace }) => ok(projectFullView(await getProject(workspace, path.slug))),
});
