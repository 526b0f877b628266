import * as z from 'zod/mini';
import { getLabel } from '#domain/labels';
import { endpoint, ok } from '#http/endpoint';
import { labelView } from '#http/labelViews';
import { slugParam } from '#http/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects-labels/{slug}: one label (where create's Location points). */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ path }, { workspace }) => ok(labelView(await getLabel(workspace, path.slug))),
});
