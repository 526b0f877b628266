import * as z from 'zod/mini';
import { endpoint, noContent } from '#http/endpoint';
import { deleteLabel } from '#domain/labels';
import { slugParam } from '#http/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** DELETE /projects-labels/{slug}: the label, removed from every task of every project. 204. */
export const handler = endpoint({
  scope: 'labels:write',
  input,
  run: async ({ path }, { workspace }) => {
    await deleteLabel(workspace, path.slug);
    return noContent();
  },
});
