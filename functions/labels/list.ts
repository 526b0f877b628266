import { endpoint } from '#http/endpoint';
import { labelListReply } from '#http/labelLists';
import { labelListInput } from '#wire/labelSchemas';

/**
 * GET /projects-labels: every label of the workspace by title; with `project_slug`, the project's
 * labels (with tasks_count, as GET /task-labels); with `task_uuid` too, the labels of that task.
 * With `limit`, `per_page`, `page` or `cursor`, one page of them (domain/labelLists.ts).
 */
export const handler = endpoint({
  scope: 'labels:read',
  input: labelListInput('optional'),
  run: async ({ query }, { workspace }) => labelListReply(query, workspace),
});
