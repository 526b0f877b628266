import type * as z from 'zod';

import type { ProjectLabel } from '#domain/projectLabels';
import type { LabelChangeResult } from '#domain/taskLabels';
import type { Label, ProjectLabel as ProjectLabelAnswer, TaskLabels } from './answers';
import type { LabelRecord } from '#domain/entities';

/** What the API returns for a label; each view is typed by its schema in answers.ts. */
export function labelView(l: LabelRecord): z.infer<typeof Label> {
  return { id: l.id, slug: l.slug, title: l.title, color: l.color };
}

/** A label of a project: the label and how many of the project's tasks carry it. */
export function projectLabelView(l: ProjectLabel): z.infer<typeof ProjectLabelAnswer> {
  return { ...labelView(l), tasks_count: l.tasks_count };
}

/** Attach/detach answers: one task's labels, `[{ task_uuid, labels }]` for a bulk request, or the project's labels. */
export function labelChangeView(
  result: LabelChangeResult,
): z.infer<typeof Label>[] | z.infer<typeof TaskLabels>[] | z.infer<typeof ProjectLabelAnswer>[] {
  if ('task' in result) return result.task.map(labelView);
  if ('tasks' in result) return result.tasks.map((t) => ({ task_uuid: t.task_uuid, labels: t.labels.map(labelView) }));
  return result.project.map(projectLabelView);
}

export function labelLocation(ws: string, slug: string): string {
  return `/projects-labels/${slug}?company_slug=${ws}`;
}
