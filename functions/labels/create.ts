import * as z from 'zod/mini';
import { created, endpoint } from '#commons/http';
import { labelFields } from '#commons/labelSchemas';
import { createLabel, labelView } from '#commons/labels';

const input = z.object({ body: z.object({ title: labelFields.title, color: labelFields.color }) });

/** POST /projects-labels: a new label. 201; 409 when the title is taken (case-insensitively). */
export const handler = endpoint({
  scope: 'labels:write',
  input,
  run: async ({ body }, { workspace }) => {
    const label = await createLabel(workspace, body);
    return created(labelView(label), `/projects-labels/${label.slug}?company_slug=${workspace}`);
  },
});
