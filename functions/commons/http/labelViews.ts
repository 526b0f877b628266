import type { LabelRecord } from '#domain/labels';
import type { TaskLabels } from '#domain/taskLabels';

/** What the API returns for a label. */
export function labelView(l: LabelRecord) {
  return { id: l.id, slug: l.slug, title: l.title, color: l.color };
}

/** Attach/detach answers: one task's labels, or `[{ task_uuid, labels }]` for a bulk request. */
export function taskLabelsView(result: LabelRecord[] | TaskLabels[]) {
  return result.map((entry) =>
    'task_uuid' in entry ? { task_uuid: entry.task_uuid, labels: entry.labels.map(labelView) } : labelView(entry),
  );
}

export function labelLocation(ws: string, slug: string): string {
  return `/projects-labels/${slug}?company_slug=${ws}`;
}
