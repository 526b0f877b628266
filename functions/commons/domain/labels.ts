import {
  deleteLabelItems,
  labelSlugsRange,
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
import type { Actor } from '#store/codec';
import { changedSinceRead, Conflict, labelNotFound, type Precondition } from './errors';
import { claimSlug, slugify } from './slugs';
import { foldKey, titleKey } from './text';

export type { LabelRecord };

/** Case-insensitive by title, then exact title, then id: a stable, human order. */
export function byTitle(a: Pick<LabelRecord, 'title' | 'id'>, b: Pick<LabelRecord, 'title' | 'id'>): number {
  const an = foldKey(a.title);
  const bn = foldKey(b.title);
  return an < bn ? -1 : an > bn ? 1 : a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

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
export async function createLabel(ws: string, input: { title: string; color: string }, actor: Actor): Promise<LabelRecord> {
  const id = await nextLabelId(ws);
  const now = new Date().toISOString();
  const takenSlugs = async (prefix: string) => (await queryAll(labelSlugsRange(ws, prefix))).map(slugOfLabelItem);
  return claimSlug(
    slugify(input.title, 'label'),
    takenSlugs,
    async (slug) => {
      const label: LabelRecord = { id, slug, title: input.title, color: input.color, created_at: now, updated_at: now, updated_by: actor };
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

/**
 * Title and/or color; the slug and id never change. A rename moves the title guard atomically. With
 * a precondition (If-Match), the label is read and checked first, and the write is conditional on
 * the revision read: a change in between is a 412, never overwritten.
 */
export async function updateLabel(
  ws: string,
  slug: string,
  patch: { title?: string | undefined; color?: string | undefined },
  actor: Actor,
  precondition?: Precondition<LabelRecord>,
): Promise<LabelRecord> {
  if (patch.title === undefined) {
    // No title change: one conditional UpdateItem (with If-Match, on the revision read and checked).
    let asRead: LabelRecord | undefined;
    if (precondition) {
      asRead = await getLabel(ws, slug);
      await precondition(asRead);
    }
    const recolored = await recolorLabel(ws, slug, patch.color, actor, asRead);
    if (recolored) return recolored;
    if (asRead) await getLabel(ws, slug); // still there: it changed since it was checked
    throw asRead ? changedSinceRead() : labelNotFound(slug);
  }
  const current = await getLabel(ws, slug);
  await precondition?.(current);
  const next: LabelRecord = {
    ...current,
    title: patch.title ?? current.title,
    color: patch.color ?? current.color,
    updated_at: new Date().toISOString(),
    updated_by: actor,
    rev: (current.rev ?? 0) + 1,
  };
  try {
    await rewriteLabel(ws, current, next, titleKey, precondition !== undefined);
    return next;
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('newGuard')) throw titleTaken(next.title);
    if (error.conditionFailed('label')) {
      // Changed or deleted since we read it: report what is true now.
      await getLabel(ws, slug);
      throw precondition ? changedSinceRead() : new Conflict('The label was changed by another request; retry.');
    }
    throw error;
  }
}

/**
 * Deletes a label at once, whatever the number of tasks carrying it: the label and its title guard
 * go and its deletion job comes in one transaction, so every read answers 404 and the title and slug
 * are free before this returns; no attach can succeed after it (attaches check the label). The
 * job's stream record starts the cascade that takes the label off every task and label set.
 */
export async function deleteLabel(ws: string, slug: string, actor: Actor, precondition?: Precondition<LabelRecord>): Promise<LabelRecord> {
  const label = await getLabel(ws, slug);
  await precondition?.(label);
  try {
    await deleteLabelItems(ws, label, titleKey, actor, precondition !== undefined);
  } catch (error) {
    if (!(error instanceof TransactionCancelled && error.anyConditionFailed)) throw error;
    // A concurrent DELETE of the same label finished first (404), or, If-Match, it changed since (412).
    if (!precondition || !error.conditionFailed('label')) throw labelNotFound(slug);
    await getLabel(ws, slug);
    throw changedSinceRead();
  }
  return label;
}
