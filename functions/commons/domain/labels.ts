import {
  deleteLabelItems,
  labelSlugsRange,
  markLabelDeleting,
  nextLabelId,
  putNewLabel,
  readLabel,
  readLabels,
  recolorLabel,
  rewriteLabel,
  slugOfLabelItem,
  type LabelRecord,
} from '#store/labels';
import { queryAll } from '#store/query';
import { TransactionCancelled } from '#store/errors';
import { removeLabelData } from './cascades';
import { Conflict, labelNotFound } from './errors';
import { claimSlug, slugify } from './slugs';
import { foldKey, titleKey } from './text';

export type { LabelRecord };

/** Case-insensitive by title, then exact title, then id: a stable, human order. */
export function byTitle(a: LabelRecord, b: LabelRecord): number {
  const an = foldKey(a.title);
  const bn = foldKey(b.title);
  return an < bn ? -1 : an > bn ? 1 : a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

const beingDeleted = () => new Conflict('The label is being deleted; it can no longer be changed.');
const titleTaken = (title: string) => new Conflict(`A label titled "${title}" already exists in this workspace.`);

export async function listLabels(ws: string): Promise<LabelRecord[]> {
  return (await readLabels(ws)).sort(byTitle);
}

export async function getLabel(ws: string, slug: string): Promise<LabelRecord> {
  const label = await readLabel(ws, slug);
  if (!label) throw labelNotFound(slug);
  return label;
}

/**
 * A new label: its id from the workspace's atomic counter (ids are never reused; a create that
 * fails, e.g. on a taken title, leaves a gap), its slug the first free one derived from the title,
 * its title claimed through a guard item so that two labels can never share a title
 * case-insensitively, even when created at the same moment.
 */
export async function createLabel(ws: string, input: { title: string; color: string }): Promise<LabelRecord> {
  const id = await nextLabelId(ws);
  const now = new Date().toISOString();
  const takenSlugs = async (prefix: string) => (await queryAll(labelSlugsRange(ws, prefix))).map(slugOfLabelItem);
  return claimSlug(
    slugify(input.title, 'label'),
    takenSlugs,
    async (slug) => {
      const label: LabelRecord = { id, slug, title: input.title, color: input.color, created_at: now, updated_at: now };
      try {
        await putNewLabel(ws, label, titleKey);
        return label;
      } catch (error) {
        if (!(error instanceof TransactionCancelled)) throw error;
        if (error.conditionFailed('guard')) throw titleTaken(input.title);
        if (error.conditionFailed('label')) return undefined;
        throw error;
      }
    },
    'labels with this title',
  );
}

/** Title and/or color; the slug and id never change. A rename moves the title guard atomically. */
export async function updateLabel(
  ws: string,
  slug: string,
  patch: { title?: string | undefined; color?: string | undefined },
): Promise<LabelRecord> {
  if (patch.title === undefined) {
    const recolored = await recolorLabel(ws, slug, patch.color);
    if (recolored) return recolored;
    if ((await getLabel(ws, slug)).deleting) throw beingDeleted();
    throw new Conflict('The label was changed by another request; retry.');
  }
  const current = await getLabel(ws, slug);
  if (current.deleting) throw beingDeleted();
  const next: LabelRecord = { ...current, title: patch.title, color: patch.color ?? current.color, updated_at: new Date().toISOString() };
  try {
    await rewriteLabel(ws, current, next, titleKey);
    return next;
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('newGuard')) throw titleTaken(next.title);
    if (error.conditionFailed('label')) {
      // Changed or deleted since we read it: report what is true now.
      await getLabel(ws, slug);
      throw new Conflict('The label was changed by another request; retry.');
    }
    throw error;
  }
}

/**
 * Deletes a label in three resumable steps: mark it `deleting` (from then on no attach can
 * succeed), remove it from every task of every project, then delete the label and its title
 * guard in one transaction. If a step fails the request answers 503 and the label stays, marked:
 * a retried DELETE finishes the job. No link ever points to a label that is gone.
 */
export async function deleteLabel(ws: string, slug: string): Promise<LabelRecord> {
  const label = await markLabelDeleting(ws, slug);
  if (!label) throw labelNotFound(slug);
  await removeLabelData(ws, label.id);
  // A label under deletion cannot be renamed (see rewriteLabel), so its title guard is the marked one.
  try {
    await deleteLabelItems(ws, label, titleKey);
  } catch (error) {
    // A concurrent DELETE of the same label finished first.
    if (error instanceof TransactionCancelled && error.anyConditionFailed) throw labelNotFound(slug);
    throw error;
  }
  return label;
}
