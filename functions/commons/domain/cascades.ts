import { deleteKeys } from '#store/batches';
import { keyOf, labelSidesOf, projectsOf, readLabelLinks, readProjectCollection, releaseLabelUse, taskSidesOf } from '#store/collections';
import { withOptimisticRetry } from '#store/transactions';

/**
 * What a delete takes with it. Both run after their project or label is marked `deleting`, so no
 * new link can appear, and read until nothing is left. Far halves go first and the deleted
 * resource's own collection last, so an interruption anywhere leaves every remaining item findable
 * from it: a retried DELETE finishes the job.
 */

/** Everything keyed to a project's internal id: both halves of its links, use counters, task versions. */
export async function removeProjectData(ws: string, projectId: string): Promise<void> {
  for (;;) {
    const items = await readProjectCollection(projectId);
    if (items.length === 0) return;
    await deleteKeys(labelSidesOf(ws, projectId, items));
    await deleteKeys(items.map(keyOf));
  }
}

/**
 * A label from every task of every project. Per round: release each affected project's use counter
 * (with its `labels_count` decrement), delete the task-side halves, then the label-side halves.
 */
export async function removeLabelData(ws: string, labelId: number): Promise<void> {
  for (;;) {
    const links = await readLabelLinks(ws, labelId);
    if (links.length === 0) return;
    await Promise.all(projectsOf(links).map((project) => withOptimisticRetry(() => releaseLabelUse(ws, project, labelId))));
    await deleteKeys(taskSidesOf(labelId, links));
    await deleteKeys(links.map(keyOf));
  }
}
