import { NotFound } from './errors';
import { getLabel } from './labels';
import { attachLabel, detachLabel, labelsOfTasks } from './links';
import { getProject } from './projects';

/**
 * Attach or detach as the API does it: resolve the label and project (404 when either is unknown
 * in the workspace), apply the change to each task, then answer with the tasks' labels.
 * A single `task_uuid` answers with that task's labels; `task_uuids` with one entry per task.
 */
export async function changeTaskLabels(
  change: 'attach' | 'detach',
  ws: string,
  req: { labelSlug: string; projectSlug: string; taskUuid?: string; taskUuids?: string[] },
) {
  const [label, project] = await Promise.all([getLabel(ws, req.labelSlug), getProject(ws, req.projectSlug)]);
  // Nothing new may be attached to what is being deleted; its delete removes every link anyway.
  if (change === 'attach' && label.deleting) throw new NotFound(`No label "${label.slug}" in this workspace.`);
  if (change === 'attach' && project.deleting) throw new NotFound(`No project "${project.slug}" in this workspace.`);
  const tasks = [...new Set(req.taskUuids ?? [req.taskUuid!])];
  const apply = change === 'attach' ? attachLabel : detachLabel;
  const states = await apply(ws, { id: project.id, slug: project.slug }, { id: label.id, slug: label.slug }, tasks);
  const result = await labelsOfTasks(ws, states);
  return req.taskUuids ? result : result[0]!.labels;
}
