import { TransactionCancelled } from '#store/errors';

import type { LabelRef, ProjectRef } from '#store/linkItems';

import { changedSinceRead, labelNotFound, projectNotFound } from './errors';
import { getLabel } from './labels';
import { getProject } from './projects';
import type { LabelRecord, ProjectRecord } from './entities';
import { allSettled } from '#store/settled';

/** The label and project a link change (attach, detach, toggle, label sets) acts on. */
export interface LinkEnds {
  label: LabelRecord;
  project: ProjectRecord;
  labelRef: LabelRef;
  projectRef: ProjectRef;
}

/** Reads the label and the project of the workspace together; 404 when either is unknown. */
export async function linkEnds(ws: string, labelSlug: string, projectSlug: string): Promise<LinkEnds> {
  const [label, project] = await allSettled([getLabel(ws, labelSlug), getProject(ws, projectSlug)]);
  return {
    label,
    project,
    labelRef: { id: label.id, slug: label.slug, title: label.title, color: label.color },
    projectRef: { id: project.id, slug: project.slug },
  };
}

/** A cancelled write whose label or project condition failed: that resource went away meanwhile. */
export function goneReference(error: unknown, labelSlug: string, projectSlug: string): unknown {
  if (error instanceof TransactionCancelled && error.conditionFailed('label')) return labelNotFound(labelSlug);
  if (error instanceof TransactionCancelled && error.conditionFailed('project')) return projectNotFound(projectSlug);
  return error;
}

/**
 * A cancelled link change made conditional on the label as read (If-Match, part `labelAsRead`) whose
 * label changed meanwhile: 412, or 404 when it is gone. Any other error as it is.
 */
export async function changedLabel(error: unknown, ws: string, labelSlug: string): Promise<never> {
  if (error instanceof TransactionCancelled && error.conditionFailed('labelAsRead')) {
    await getLabel(ws, labelSlug); // 404 when it is gone
    throw changedSinceRead();
  }
  throw error;
}
