import * as z from 'zod/mini';
import { endpoint, ok } from '#commons/http';
import { projectFullView } from '#commons/projectViews';
import { MAX_PROJECT_NAME, PROJECT_STATUSES, updateProject } from '#commons/projects';
import { projectFields } from '#commons/projectSchemas';
import { slugParam, text } from '#commons/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  body: z.object({
    name: z.optional(text(1, MAX_PROJECT_NAME)),
    description: z.optional(projectFields.description),
    visibility: z.optional(projectFields.visibility),
    status: z.optional(z.enum(PROJECT_STATUSES)),
    settings: z.optional(projectFields.settings),
  }),
});

/** PUT /projects/{slug}: partial update; the slug never changes. 200 with the full shape. */
export const handler = endpoint({
  scope: 'projects:write',
  input,
  workspaceInBody: true,
  run: async ({ path, body }, { workspace }) => ok(projectFullView(await updateProject(workspace, path.slug, body))),
});
