import { deleteProjectLabel, writeProjectLabel } from '#store/labelSets';
import { readProjectLabelState } from '#store/projectLabelReads';
import { listLabels } from './labels';

import type { Precondition } from './errors';
import { changedLabel, goneReference, linkEnds } from './linkEnds';
import { getProject } from './projects';
import type { Actor, LabelRecord } from './entities';
import { allSettled } from '#store/settled';

/** A label as a project sees it: with how many of the project's tasks carry it. */
export type ProjectLabel = LabelRecord & { tasks_count: number };

/**
 * The project's labels: its label set (labels attached to the project itself, as GitScrum's client
 * does) and every label one of its tasks carries, each with `tasks_count`, ordered by title.
 * `tasks_count` comes from the project's use counters: like `labels_count`, exact once the table's
 * stream has drained (within seconds of a change).
 */
export async function projectLabels(ws: string, projectSlug: string): Promise<ProjectLabel[]> {
  const project = await getProject(ws, projectSlug);
  const [{ uses, set }, labels] = await allSettled([readProjectLabelState(project.id), listLabels(ws)]);
  const members = new Set(set);
  return labels.filter((l) => uses.has(l.id) || members.has(l.id)).map((l) => ({ ...l, tasks_count: uses.get(l.id) ?? 0 }));
}

/**
 * Adds the label to the project's label set or removes it (idempotent both ways), then answers the
 * project's labels. A deleted label or project takes nothing new; its cascade empties the set.
 */
export async function changeProjectLabels(
  change: 'attach' | 'detach',
  ws: string,
  labelSlug: string,
  projectSlug: string,
  actor: Actor,
  precondition?: Precondition<LabelRecord>,
): Promise<ProjectLabel[]> {
  const targets = await linkEnds(ws, labelSlug, projectSlug);
  await precondition?.(targets.label);
  if (change === 'detach') {
    const asRead = precondition ? targets.label : undefined;
    await deleteProjectLabel(ws, targets.projectRef, targets.labelRef, actor, asRead).catch((error: unknown) =>
      changedLabel(error, ws, labelSlug),
    );
  } else {
    await writeProjectLabel(ws, targets.projectRef, targets.labelRef, actor).catch((error: unknown) => {
      throw goneReference(error, labelSlug, projectSlug);
    });
  }
  return projectLabels(ws, projectSlug);
}
