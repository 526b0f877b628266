import type { LabelRecord } from '#domain/labels';
import type { ProjectLabel } from '#domain/projectLabels';
import type { LabelChangeResult } from '#domain/taskLabels';

/** What the API returns for a label. */
export function labelView(l: LabelRecord) {
  return { id: l.id, slug: l.slug, title: l.title, color: l.color };
}

/** A label of a project: the label and how many of the project's tasks carry it. */
export function projectLabelView(l: ProjectLabel) {
  return { ...labelView(l), tasks_count: l.tasks_count };
}

/** Attach/detach answers: one task's labels, `[{ task_uuid, labels }]` for a bulk request, or the project's labels. */
export function labelChangeView(result: LabelChangeResult) {
  if ('task' in result) return result.task.map(labelView);
  if ('tasks' in result) return result.tasks.map((t) => ({ task_uuid: t.task_uuid, labels: t.labels.map(labelView) }));
  return result.project.map(projectLabelView);
}

export function labelLocation(ws: string, slug: string): string {
  return `/projects-labels/${slug}?company_slug=${ws}`;
}
