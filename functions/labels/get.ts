import * as z from 'zod/mini';
import { getLabel } from '#domain/labels';
import { endpoint, resource } from '#http/endpoint';
import { labelView } from '#wire/labelViews';
import { slugParam } from '#wire/validation';

const input = z.object({ path: z.object({ slug: slugParam }) });

/** GET /projects-labels/{slug}: one label (where create's Location points), with its ETag (If-None-Match: 304). */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ path }, { workspace }) => resource(labelView(await getLabel(workspace, path.slug))),
});
