import * as z from 'zod/mini';
import { created, endpoint } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { projectFullView, projectLocation } from '#wire/projectViews';
import { duplicateProject } from '#domain/projects';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** POST /projects/{slug}/duplicate: a copy named "<name> (copy)", owned by the caller. 201, full shape. */
export const handler = endpoint({
  scope: 'projects:write',
  reads: 'projects:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ path }, { workspace, actor }) => {
    const copy = await duplicateProject(workspace, path.slug, actor);
    return created(projectFullView(copy), projectLocation(workspace, copy.slug));
  },
});
