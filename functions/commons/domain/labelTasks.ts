import { keys, LABEL_LINK_SHARDS } from '#store/keys';
import { taskOfLabelLink, tasksWithLabelRange } from '#store/links';
import { linkEnds } from './linkEnds';
import { readMergedPage, type Page, type PageRequest } from './paging';

/** How far one page of a label's tasks reads (every shard of the label's collection, merged in task order): ample. */
const LABEL_TASKS_BUDGET = { calls: 8 * LABEL_LINK_SHARDS, units: Number.POSITIVE_INFINITY, filteredRound: 0 };

/** The tasks of a project that carry a label, a page at a time, from every shard of the label's collection. */
export async function tasksWithLabel(ws: string, labelSlug: string, projectSlug: string, req: PageRequest): Promise<Page<string>> {
  const { labelRef, projectRef } = await linkEnds(ws, labelSlug, projectSlug);
  const range = tasksWithLabelRange(ws, labelRef.id, projectRef.id);
  const budget = { filtered: LABEL_TASKS_BUDGET, unfiltered: LABEL_TASKS_BUDGET };
  return readMergedPage(range, keys.labelCollectionShards(ws, labelRef.id), budget, ['label-tasks'], req, taskOfLabelLink);
}
