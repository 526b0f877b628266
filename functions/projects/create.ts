import * as z from 'zod/mini';
import { createProject } from '#domain/projects';
import { created, endpoint } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { projectFields } from '#http/projectSchemas';
import { projectCreateView, projectLocation } from '#http/projectViews';
import { name } from '#http/validation';

const input = z.object({
  body: z.object({
    name: projectFields.name,
    description: z.optional(projectFields.description),
    visibility: z.optional(projectFields.visibility),
    client_uuid: z.optional(name(1, 128)),
  }),
});

/** POST /projects: a new project; its slug is derived from the name. */
export const handler = endpoint({
  scope: 'projects:write',
  idempotency: idempotencyKeys,
  input,
  run: async ({ body }, { workspace, principal }) => {
    const project = await createProject(workspace, { ...body, owner: principal.owner });
    return created(projectCreateView(project), projectLocation(workspace, project.slug));
  },
});
