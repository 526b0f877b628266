import * as z from 'zod/mini';
import { labelPager } from '#domain/labelPages';
import { listLabels } from '#domain/labels';
import { projectLabels } from '#domain/projectLabels';
import { labelsOfTask } from '#domain/taskLabels';
import { ok, type Reply } from './endpoint';
import { labelView, projectLabelView } from '#wire/labelViews';
import { pageMeta, pageRequest, paginationFields, pagingRules, slugParam, taskUuid } from '#wire/validation';
import type { LabelRecord } from '#domain/entities';

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

type LabelListQuery = z.output<ReturnType<typeof labelListInput>>['query'];

/**
 * A label list's answer. Without `limit`, `per_page`, `page` or `cursor`, every label, as the spec
 * answers the list (`meta.limit` is then their number); with any of them, one page by title and a
 * `next_cursor` for the next (null exactly when nothing follows).
 */
export async function labelList(query: LabelListQuery, ws: string): Promise<Reply> {
  const whole = query.limit === undefined && query.per_page === undefined && query.page === undefined && query.cursor === undefined;
  const req = pageRequest(query);
  // A cursor is checked before anything is read.
  const pager = whole ? undefined : labelPager(ws, [query.project_slug ?? '', query.task_uuid ?? ''], req);
  const answer = <L extends LabelRecord>(labels: L[], view: (label: L) => unknown): Reply => {
    if (!pager) return ok(labels.map(view), { limit: labels.length, next_cursor: null });
    const page = pager(labels);
    return ok(page.items.map(view), pageMeta(req, page.nextCursor));
  };
  if (query.project_slug === undefined) return answer(await listLabels(ws), labelView);
  if (query.task_uuid === undefined) return answer(await projectLabels(ws, query.project_slug), projectLabelView);
  return answer(await labelsOfTask(ws, query.project_slug, query.task_uuid), labelView);
}
