import * as z from 'zod/mini';
import { updateProject } from '#domain/projects';
import { endpoint, resource } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { projectDescription, projectName, projectSettings, projectStatus, projectVisibility } from '#wire/projectSchemas';
import { projectFullView } from '#wire/projectViews';
import { slugParam } from '#wire/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  body: z.object({
    name: z.optional(projectName),
    description: z.optional(projectDescription),
    visibility: z.optional(projectVisibility),
    status: z.optional(projectStatus),
    settings: z.optional(projectSettings),
  }),
});

/** PUT /projects/{slug}: partial update; the slug never changes. 200 with the full shape and its ETag; If-Match: 412 when stale. */
export const handler = endpoint({
  scope: 'projects:write',
  reads: 'projects:read',
  input,
  run: async ({ path, body }, { workspace, actor, ifMatch }) =>
    resource(projectFullView(await updateProject(workspace, path.slug, body, actor, ifMatchCheck(ifMatch, projectFullView)))),
});
