import * as z from 'zod/mini';
import { deleteProject } from '#domain/projects';
import { endpoint, ok } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { projectFullView } from '#wire/projectViews';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** DELETE /projects/{slug}: the project and everything that belongs to it. 200 `{ slug, deleted: true }`; If-Match: 412 when stale. */
export const handler = endpoint({
  scope: 'projects:write',
  input,
  run: async ({ path }, { workspace, actor, ifMatch }) => {
    const project = await deleteProject(workspace, path.slug, actor, ifMatchCheck(ifMatch, projectFullView));
    return ok({ slug: project.slug, deleted: true });
  },
});
