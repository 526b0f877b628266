import { deleteLabelItems, putNewLabel, readLabel, readLabels, rewriteLabel } from '#store/labels';
import { recolorLabel } from '#store/labelRecolors';
import { withOptimisticRetry } from '#store/transactions';
import { countTries } from '#store/workspaceCounts';
import { labelTally } from '#store/labelTally';
import { labelSlugsRange, slugOfLabelItem } from '#store/labelItem';
import { queryAll } from '#store/query';
import { TransactionCancelled } from '#store/errors';
import { AGAIN, RETRY, withRetries } from '#store/retry';

import { changedSinceRead, Conflict, labelNotFound, LimitReached, type Precondition } from './errors';
import { MAX_LABELS_PER_WORKSPACE } from './limits';
import { claimSlug, slugify } from './slugs';
import { foldKey, titleKey } from './text';
import type { Actor, LabelRecord } from './entities';

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

/** A label, or a 404; `fromItem`: read from its item, not a copy (store/copies.ts). */
export async function getLabel(ws: string, slug: string, fromItem = false): Promise<LabelRecord> {
  const label = await readLabel(ws, slug, fromItem);
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
  // The workspace's count holds the limit against concurrent creates: a create that lost the count to
  // another (a count it read moved, or two first counts) reads it again. Its id is taken once: a try that
  // failed leaves it to the next (the counter never gives it again).
  const count = countTries();
  let id: number | undefined;
  return withOptimisticRetry(async () => {
    const tally = await labelTally(ws);
    const part = await count.in(tally.count, ws, MAX_LABELS_PER_WORKSPACE);
    if (part === 'full') throw workspaceFull();
    const taken = (id ??= await tally.nextId());
    return count.tried(() => createCountedLabel(ws, input, actor, part, taken));
  });
}

const workspaceFull = () =>
  new LimitReached([
    {
      field: 'title',
      message: `cannot be added: the workspace holds ${MAX_LABELS_PER_WORKSPACE} labels, its limit; delete one first`,
    },
  ]);

async function createCountedLabel(
  ws: string,
  input: { title: string; color: string },
  actor: Actor,
  count: Parameters<typeof putNewLabel>[3],
  id: number,
): Promise<LabelRecord> {
  const now = new Date().toISOString();
  const takenSlugs = async (prefix: string) => (await queryAll(labelSlugsRange(ws, prefix), { keysOnly: true })).map(slugOfLabelItem);
  return claimSlug(
    slugify(input.title, 'label'),
    takenSlugs,
    async (slug) => {
      const label: LabelRecord = { id, slug, title: input.title, color: input.color, created_at: now, updated_at: now, updated_by: actor };
      try {
        await putNewLabel(ws, label, titleKey, count);
        return label;
      } catch (error) {
        // The count first: a full workspace is refused as such, whatever else failed beside it.
        if (!(error instanceof TransactionCancelled) || error.conditionFailed('count')) throw error;
        if (error.conditionFailed('guard')) throw titleTaken(input.title);
        if (error.conditionFailed('label')) return undefined;
        throw error;
      }
    },
    'labels with this title',
  );
}

/**
 * Title and/or color; the slug and id never change. A rename moves the title guard atomically. Every
 * write is conditional on the revision read (a color alone changes only the color), so two
 * concurrent changes never lose each other's fields: a change that lost the race reads again and
 * reapplies its own fields. With a precondition (If-Match) a change in between is a 412 instead. A
 * change that changes nothing writes nothing: no event, the same ETag.
 */
export async function updateLabel(
  ws: string,
  slug: string,
  patch: { title?: string | undefined; color?: string | undefined },
  actor: Actor,
  precondition?: Precondition<LabelRecord>,
): Promise<LabelRecord> {
  if (patch.title === undefined && patch.color !== undefined && !precondition) {
    // A recolor alone: conditional on the revision it reads, retried on a change in between (store/labels.ts).
    const recolored = await recolorLabel(ws, slug, patch.color, actor);
    if (!recolored) throw labelNotFound(slug);
    return recolored.label;
  }
  // A change that lost its condition reads the item itself next (a copy the version before left stale is then put right).
  let again = false;
  return withRetries<LabelRecord>(RETRY.conflicts, 'The label is being changed by other requests; retry shortly.', async () => {
    const current = await getLabel(ws, slug, again);
    again = true;
    await precondition?.(current);
    const title = patch.title ?? current.title;
    const color = patch.color ?? current.color;
    if (title === current.title && color === current.color) return current;
    const lostRace = async (): Promise<typeof AGAIN> => {
      if (!precondition) return AGAIN;
      await getLabel(ws, slug); // 404 when it is gone
      throw changedSinceRead();
    };
    if (title === current.title) return (await recolorLabel(ws, slug, color, actor, current))?.label ?? lostRace();
    const next: LabelRecord = {
      ...current,
      title,
      color,
      updated_at: new Date().toISOString(),
      updated_by: actor,
      rev: (current.rev ?? 0) + 1,
    };
    try {
      await rewriteLabel(ws, current, next, titleKey);
      return next;
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      if (error.conditionFailed('newGuard')) throw titleTaken(next.title);
      if (error.conditionFailed('label') || error.conflicted) return lostRace();
      throw error;
    }
  });
}

/**
 * Deletes a label at once, whatever the number of tasks carrying it: the label and its title guard
 * go and its deletion job comes in one transaction, so every read answers 404 and the title and slug
 * are free before this returns; no attach can succeed after it (attaches check the label). The
 * job's stream record starts the cascade that takes the label off every task and label set.
 */
export async function deleteLabel(ws: string, slug: string, actor: Actor, precondition?: Precondition<LabelRecord>): Promise<LabelRecord> {
  const count = countTries();
  return withRetries(RETRY.conflicts, 'The label is being changed by other requests; retry shortly.', async () => {
    const label = await getLabel(ws, slug);
    await precondition?.(label);
    try {
      await deleteLabelItems(ws, label, titleKey, actor, count, precondition !== undefined);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      // Only the workspace's count moved under it (a create or delete at once), or it was not as guessed: read again.
      const countMissed = count.missed(error);
      const onlyTheCount = !error.conditionFailed('label') && !error.conditionFailed('guard') && !error.conditionFailed('job');
      if (error.conflicted || (countMissed && onlyTheCount)) return AGAIN;
      if (!error.anyConditionFailed) throw error;
      // A concurrent DELETE of the same label finished first (404), or, If-Match, it changed since (412).
      if (!precondition || !error.conditionFailed('label')) throw labelNotFound(slug);
      await getLabel(ws, slug);
      throw changedSinceRead();
    }
    return label;
  });
}
