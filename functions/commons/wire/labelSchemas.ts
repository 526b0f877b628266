import * as z from 'zod/mini';
import { MAX_LABEL_TITLE } from '#domain/limits';
import { name, paginationFields, pagingRules, slugParam, taskUuid } from './validation';

/** Field rules of labels, shared by create and update. */
export const labelFields = {
  title: name(1, MAX_LABEL_TITLE),
  /** Six hex digits; a leading `#` is accepted and dropped; stored and returned uppercase. */
  color: z.pipe(
    z.string().check(z.regex(/^#?[0-9A-Fa-f]{6}$/, 'must be six hex digits, e.g. FF5733')),
    z.transform((c: string) => c.replace(/^#/, '').toUpperCase()),
  ),
};

/**
 * The query of a label list (GET /projects-labels, and GET /task-labels, where `project_slug` is
 * required): the workspace's labels; with `project_slug`, the project's (with `tasks_count`); with
 * `task_uuid` too, that task's; and the paging fields every list takes.
 */
export function labelListInput(project: 'optional' | 'required') {
  const projectSlug: z.ZodMiniType<string | undefined> = project === 'required' ? slugParam : z.optional(slugParam);
  return z.object({
    query: z.object({ project_slug: projectSlug, task_uuid: z.optional(taskUuid), ...paginationFields() }).check(
      z.refine((q) => q.task_uuid === undefined || q.project_slug !== undefined, {
        message: 'task_uuid needs project_slug',
        path: ['task_uuid'],
      }),
      pagingRules(),
    ),
  });
}
