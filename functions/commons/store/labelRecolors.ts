import type { Actor, LabelRecord } from '#domain/entities';
import { TransactionCancelled } from './errors';
import { keys } from './keys';
import { allCopied, copyPuts, copyUpdates } from './copies';
import { COPIED } from './copyLayouts';
import { labelBody } from './labelCopyLayout';
import { readLabel, revisionValues, sameRevision } from './labels';
import { AGAIN, RETRY, withRetries } from './retry';
import { transact, tx } from './transactions';

/** A label's change of color alone (its other changes: labels.ts). */

/** What a recolor found: the label after it, and whether it changed (false: it had that color already). */
export interface Recolored {
  label: LabelRecord;
  changed: boolean;
}

/**
 * A change of color alone, only when the color differs (the same color writes nothing and answers the label as it is).
 * Undefined when there is no such label (or, `asRead`, when it is no longer that label at that revision).
 *
 * Once every label has its copies, one without `asRead` makes the same update on the item and each copy in one
 * transaction, with no read before it: concurrent recolors of one label never lose a round to each other (a lost
 * round costs its write units). Otherwise the item's update, conditional on the revision read (`asRead`, or read
 * here), with its copies put as the label then is; a change in between reads again.
 */
export async function recolorLabel(
  ws: string,
  slug: string,
  color: string,
  actor: Actor,
  asRead?: LabelRecord,
): Promise<Recolored | undefined> {
  let missing = false;
  if (!asRead && (await allCopied(COPIED.label))) {
    const inPlace = await recolorInPlace(ws, slug, color, actor);
    if (inPlace !== COPY_MISSING) return inPlace;
    missing = true;
  }
  // A copy missing: read the item, whichever copy would be read.
  let again = missing;
  return withRetries(RETRY.conflicts, 'The label is being changed by other requests; retry shortly.', async () => {
    const current = asRead ?? (await readLabel(ws, slug, again));
    if (!current) return undefined;
    if (current.color === color) return { label: current, changed: false };
    const next: LabelRecord = { ...current, color, updated_at: new Date().toISOString(), updated_by: actor, rev: (current.rev ?? 0) + 1 };
    const update = tx.update(keys.label(ws, slug), RECOLOR, {
      condition: `id = :readId AND ${sameRevision(current)}`,
      names: { '#rev': 'rev' },
      values: {
        ':readId': current.id,
        ...revisionValues(current),
        ':color': color,
        ':now': next.updated_at,
        ':by': actor,
        ':zero': 0,
        ':one': 1,
      },
    });
    try {
      await transact([['label', update], ...(await copyPuts(labelBody(ws, next)))]);
      return { label: next, changed: true };
    } catch (error) {
      if (!(error instanceof TransactionCancelled) || (!error.conditionFailed('label') && !error.conflicted)) throw error;
      again = true;
      return asRead ? undefined : AGAIN;
    }
  });
}

const RECOLOR = 'SET color = :color, updated_at = :now, updated_by = :by, #rev = if_not_exists(#rev, :zero) + :one';

/** A copy was not where it should be (the copies' invariant broken): the recolor goes by a read, which puts them all. */
const COPY_MISSING = Symbol('copy missing');

/** The recolor of a copied table without a revision to hold to (recolorLabel); the answer is the label as it is after. */
async function recolorInPlace(ws: string, slug: string, color: string, actor: Actor): Promise<Recolored | undefined | typeof COPY_MISSING> {
  const change = {
    names: { '#rev': 'rev' },
    values: { ':color': color, ':now': new Date().toISOString(), ':by': actor, ':zero': 0, ':one': 1 },
  };
  return withRetries(RETRY.conflicts, 'The label is being changed by other requests; retry shortly.', async () => {
    try {
      await transact([
        ['label', tx.update(keys.label(ws, slug), RECOLOR, { condition: 'attribute_exists(PK) AND color <> :color', ...change })],
        ...copyUpdates(COPIED.label, ws, slug, RECOLOR, change),
      ]);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      if (!error.conditionFailed('label') && error.anyConditionFailed) return COPY_MISSING;
      if (!error.conditionFailed('label')) {
        if (error.conflicted) return AGAIN;
        throw error;
      }
      // Not there, or of that color already: as it is (any copy is as its item: they change together).
      const label = await readLabel(ws, slug);
      return label && label.color === color ? { label, changed: false } : undefined;
    }
    const label = await readLabel(ws, slug);
    return label ? { label, changed: true } : undefined;
  });
}
