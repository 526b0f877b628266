import * as z from 'zod/mini';
import { projectLabels } from '#domain/projectLabels';
import { endpoint, ok } from '#http/endpoint';
import { projectLabelView } from '#http/labelViews';
import { slugParam } from '#http/validation';

const input = z.object({ query: z.object({ project_slug: slugParam }) });

/** GET /task-labels?project_slug=: the project's labels (its label set and those its tasks carry), with tasks_count. */
export const handler = endpoint({
  scope: 'labels:read',
  input,
  run: async ({ query }, { workspace }) => ok((await projectLabels(workspace, query.project_slug)).map(projectLabelView)),
});
