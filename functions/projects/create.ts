import * as z from 'zod/mini';
import { createProject } from '#domain/projects';
import { created, endpoint } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { projectDescription, projectName, projectVisibility } from '#wire/projectSchemas';
import { projectCreateView, projectLocation } from '#wire/projectViews';
import { name } from '#wire/validation';

const input = z.object({
  body: z.object({
    name: projectName,
    description: z.optional(projectDescription),
    visibility: z.optional(projectVisibility),
    client_uuid: z.optional(name(1, 128, 512)),
  }),
});

/** POST /projects: a new project; its slug is derived from the name. */
export const handler = endpoint({
  scope: 'projects:write',
  reads: 'projects:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ body }, { workspace, principal, actor }) => {
    const project = await createProject(workspace, { ...body, owner: principal.owner }, actor);
    return created(projectCreateView(project), projectLocation(workspace, project.slug));
  },
});
