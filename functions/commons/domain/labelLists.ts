import type { LabelRecord } from './entities';
import { labelPager } from './labelPages';
import { listLabels } from './labels';
import type { Page, PageRequest } from './paging';
import { projectLabels, type ProjectLabel } from './projectLabels';
import { labelsOfTask } from './taskLabels';

/** Whose labels a label list holds: the workspace's, a project's (with how many tasks carry each), or a task's. */
export interface LabelListOf {
  project?: string | undefined;
  task?: string | undefined;
}

/** A label list: its labels (a page of them when paged), and whether they carry `tasks_count`. */
export type LabelList = (Page<LabelRecord> & { counted: false }) | (Page<ProjectLabel> & { counted: true });

/**
 * The labels of a workspace, a project or a task, by title: every one of them without `req`, as the
 * interface answers the list; with it, one page and the cursor of the next (an edited or foreign
 * cursor is refused before anything is read).
 */
export async function labelList(ws: string, of: LabelListOf, req: PageRequest | undefined): Promise<LabelList> {
  const pager = req && labelPager(ws, [of.project ?? '', of.task ?? ''], req);
  const cut = <L extends LabelRecord>(labels: L[]): Page<L> => (pager ? pager(labels) : { items: labels, nextCursor: null });
  if (of.project === undefined) return { ...cut(await listLabels(ws)), counted: false };
  if (of.task === undefined) return { ...cut(await projectLabels(ws, of.project)), counted: true };
  return { ...cut(await labelsOfTask(ws, of.project, of.task)), counted: false };
}
