import { endpoint } from '#http/endpoint';
import { labelListReply } from '#http/labelLists';
import { labelListInput } from '#wire/labelSchemas';

/**
 * GET /task-labels?project_slug=: the alias of GET /projects-labels?project_slug= (the project's
 * labels, its label set and those its tasks carry, with tasks_count), taking the same query.
 */
export const handler = endpoint({
  scope: 'labels:read',
  input: labelListInput('required'),
  run: async ({ query }, { workspace }) => labelListReply(query, workspace),
});
