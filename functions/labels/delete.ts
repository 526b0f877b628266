import * as z from 'zod/mini';
import { deleteLabel } from '#domain/labels';
import { endpoint, ok } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { labelView } from '#wire/labelViews';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** DELETE /projects-labels/{slug}: the label, removed from every task of every project. 200 `{ id, slug, deleted: true }`. */
export const handler = endpoint({
  scope: 'labels:write',
  input,
  run: async ({ path }, { workspace, actor, ifMatch }) => {
    const label = await deleteLabel(workspace, path.slug, actor, ifMatchCheck(ifMatch, labelView));
    return ok({ id: label.id, slug: label.slug, deleted: true });
  },
});
