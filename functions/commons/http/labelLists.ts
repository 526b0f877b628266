import type * as z from 'zod/mini';
import { labelList } from '#domain/labelLists';
import type { labelListInput } from '#wire/labelSchemas';
import { labelView, projectLabelView } from '#wire/labelViews';
import { pageMeta, pageRequest } from '#wire/validation';
import { ok, type Reply } from './endpoint';

type LabelListQuery = z.output<ReturnType<typeof labelListInput>>['query'];

/**
 * A label list's answer. Without `limit`, `per_page`, `page` or `cursor`, every label, as the
 * interface answers the list (`meta.limit` is then their number); with any of them, one page by
 * title and a `next_cursor` for the next (null exactly when nothing follows).
 */
export async function labelListReply(query: LabelListQuery, ws: string): Promise<Reply> {
  const whole = query.limit === undefined && query.per_page === undefined && query.page === undefined && query.cursor === undefined;
  const req = pageRequest(query);
  const list = await labelList(ws, { project: query.project_slug, task: query.task_uuid }, whole ? undefined : req);
  const data = list.counted ? list.items.map(projectLabelView) : list.items.map(labelView);
  return ok(data, whole ? { limit: data.length, next_cursor: null } : pageMeta(req, list.nextCursor));
}
