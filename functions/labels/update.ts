import * as z from 'zod/mini';
import { endpoint, resource } from '#http/endpoint';
import { ifMatchCheck } from '#http/etags';
import { labelFields } from '#wire/labelSchemas';
import { updateLabel } from '#domain/labels';
import { labelView } from '#wire/labelViews';
import { slugParam } from '#wire/validation';

const input = z.object({
  path: z.object({ slug: slugParam }),
  body: z.object({ title: z.optional(labelFields.title), color: z.optional(labelFields.color) }),
});

/** PUT /projects-labels/{slug}: new title and/or color; id and slug unchanged. Answers its ETag; If-Match: 412 when stale. */
export const handler = endpoint({
  scope: 'labels:write',
  reads: 'labels:read',
  input,
  run: async ({ path, body }, { workspace, actor, ifMatch }) =>
    resource(labelView(await updateLabel(workspace, path.slug, body, actor, ifMatchCheck(ifMatch, labelView)))),
});
