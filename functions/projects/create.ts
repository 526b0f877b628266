import * as z from 'zod/mini';
import { created, endpoint } from '#commons/http';
import { projectCreateView, projectLocation } from '#commons/projectViews';
import { createProject, MAX_PROJECT_NAME } from '#commons/projects';
import { projectFields } from '#commons/projectSchemas';
import { text } from '#commons/validation';

const input = z.object({
  body: z.object({
    name: text(1, MAX_PROJECT_NAME),
    description: z.optional(projectFields.description),
    visibility: z.optional(projectFields.visibility),
    client_uuid: z.optional(text(1, 128)),
  }),
});

/** POST /projects: a new project; its slug is derived from the name. */
export const handler = endpoint({
  scope: 'projects:write',
  input,
  workspaceInBody: true,
  run: async ({ body }, { workspace, principal }) => {
    const project = await createProject(workspace, { ...body, owner: principal.owner });
    return created(projectCreateView(project), projectLocation(workspace, project.slug));
  },
});
