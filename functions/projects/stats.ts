import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { projectStatsView } from '#commons/projectViews';
import { getProject } from '#commons/projects';
import { slugParam } from '#commons/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects/{slug}/stats: the project's statistics object. */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ path }, { workspace }) => ok(projectStatsView(await getProject(workspace, path.slug))),
});
