import * as z from 'zod/mini';
import { createLabel } from '#domain/labels';
import { created, endpoint } from '#http/endpoint';
import { idempotencyKeys } from '#http/idempotency';
import { labelFields } from '#wire/labelSchemas';
import { labelLocation, labelView } from '#wire/labelViews';

const input = z.object({ body: z.object({ title: labelFields.title, color: labelFields.color }) });

/** POST /projects-labels: a new label. 201; 409 when the title is taken (case-insensitively). */
export const handler = endpoint({
  scope: 'labels:write',
  reads: 'labels:read',
  idempotency: idempotencyKeys,
  input,
  run: async ({ body }, { workspace, actor }) => {
    const label = await createLabel(workspace, body, actor);
    return created(labelView(label), labelLocation(workspace, label.slug));
  },
});
