import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { projectStatsView } from '#wire/projectViews';
import { getProjectWithStats } from '#domain/projects';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects/{slug}/stats: the project's statistics object. */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ path }, { workspace }) => ok(projectStatsView(await getProjectWithStats(workspace, path.slug))),
});
