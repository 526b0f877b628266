import * as z from 'zod/mini';
import { endpoint, ok } from '#http/endpoint';
import { labelFields } from '#http/labelSchemas';
import { updateLabel } from '#domain/labels';
import { labelView } from '#http/labelViews';
import { slugParam } from '#http/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  body: z.object({ title: z.optional(labelFields.title), color: z.optional(labelFields.color) }),
});

/** PUT /projects-labels/{slug}: new title and/or color; id and slug unchanged. */
export const handler = endpoint({
  scope: 'labels:write',
  input,
  run: async ({ path, body }, { workspace, principal }) => ok(labelView(await updateLabel(workspace, path.slug, body, principal.owner))),
});
