import * as z from 'zod/mini';
import { endpoint, resource } from '#http/endpoint';
import { projectFullView } from '#wire/projectViews';
import { getProjectWithStats } from '#domain/projects';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects/{slug}: one project, full shape, with its ETag (If-None-Match: 304). */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  run: async ({ path }, { workspace }) => resource(projectFullView(await getProjectWithStats(workspace, path.slug))),
});
