import { ItemType, keys } from '#store/keys';
import { moveTallyOnce, tallyLayout } from '#store/labelTally';
import { markLayoutDone, moveWait } from './layoutMarks.ts';

type Item = Record<string, any>;

/**
 * Moves every workspace's label tally that is still in the workspace's partition to its own (store/labelTally.ts, as
 * a label write there would on its next create or delete), once no function of the version before can write there
 * (the deploy's window after this version's first label write). One changed meanwhile is named: run again. A whole
 * run with none says so on the layout item (`moved_at`): functions go to the own ones without looking from then.
 */
export async function moveTallies(
  items: Item[],
  scannedAt: number,
  conflicts: string[],
  dryRun: boolean,
): Promise<{ count: number; waitUntil?: string }> {
  const layout = await tallyLayout(false, true);
  if (layout.done) return { count: 0 };
  const kept = (i: Item) =>
    (i.type === ItemType.labelCount || i.type === ItemType.labelIdCounter) &&
    i.sealed === undefined &&
    i.PK === keys.workspace(i.workspace);
  const workspaces = [...new Set(items.filter(kept).map((i) => String(i.workspace)))];
  const count = workspaces.length;
  // A clock's skew after functions begin to move (labelTally.ts), and another: longer than a request that went by the
  // workspace's tally takes to write it (then a tally no one wrote is not made there behind the move).
  const waitUntil = moveWait(layout.spreadAt, 'label', scannedAt, 2);
  if (waitUntil) return { count, waitUntil };
  if (dryRun) return { count };
  for (const ws of workspaces)
    if ((await moveTallyOnce(ws)) === 'raced') conflicts.push(`label tally of ${ws}: changed while it was moved; run again`);
  return { count };
}

/** Says on the layout item that every workspace's tally is its own: functions stop looking at the workspace's. */
export const markTalliesMoved = (): Promise<void> => markLayoutDone(keys.labelTallyLayout(), 'moved_at');
