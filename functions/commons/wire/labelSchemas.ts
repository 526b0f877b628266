import * as z from 'zod/mini';
import { MAX_LABEL_TITLE, MAX_LABEL_TITLE_BYTES } from '#domain/limits';
import { required } from './rules';
import { name, paginationFields, pagingRules, projectSlugParam, taskUuid } from './validation';

/** Six hex digits; a leading `#` is accepted and dropped; stored and returned uppercase. */
const color = () =>
  z.pipe(
    z
      .string(required('six hex digits, e.g. FF5733'))
      .check(z.regex(/^#?[0-9A-Fa-f]{6}$/, 'is not a color; use six hex digits, e.g. FF5733')),
    z.transform((c: string) => c.replace(/^#/, '').toUpperCase()),
  );

/** Field rules of labels, shared by create and update (built where a route names them). */
export const labelFields = /* @__PURE__ */ (() => ({ title: name(1, MAX_LABEL_TITLE, MAX_LABEL_TITLE_BYTES), color: color() }))();

/**
 * The query of a label list (GET /projects-labels, and GET /task-labels, where `project_slug` is
 * required): the workspace's labels; with `project_slug`, the project's (with `tasks_count`); with
 * `task_uuid` too, that task's; and the paging fields every list takes.
 */
export function labelListInput(project: 'optional' | 'required') {
  const projectSlug: z.ZodMiniType<string | undefined> = project === 'required' ? projectSlugParam : z.optional(projectSlugParam);
  return z.object({
    query: z.object({ project_slug: projectSlug, task_uuid: z.optional(taskUuid), ...paginationFields() }).check(
      z.refine((q) => q.task_uuid === undefined || q.project_slug !== undefined, {
        message: "needs project_slug too: a task's labels are read within its project",
        path: ['task_uuid'],
      }),
      pagingRules(),
    ),
  });
}
