import { CLOCK_SKEW_MS } from './deployWindow';
import { ItemType, keys, type Key } from './keys';
import { labelGuardsLayoutItem } from './labelGuardLayout';
import { type MoveLayout, readMoveLayout, RELOOK_MS } from './moveLayouts';
import { tx, type TransactItem } from './transactions';

/**
 * The parts of a transaction that take and release a label's title guards, where the table's layout keeps them
 * (labelGuardLayout.ts): `<name>:ws` for the workspace's guard, `<name>:own` for its own, each `held` (its condition
 * makes titles unique: a put only where none is, a delete only of the label's own) or `following` (written as the held
 * one is, unconditionally).
 */
type Hold = 'held' | 'following';
export interface GuardPlaces {
  ws?: Hold;
  own: Hold;
}

/** Where guards are kept under `layout` at `now`. */
export function guardPlaces(layout: MoveLayout, now = Date.now()): GuardPlaces {
  if (!layout.done) return { ws: 'held', own: 'following' };
  if (now < layout.doneAt + RELOOK_MS + CLOCK_SKEW_MS) return { ws: 'following', own: 'held' };
  return { own: 'held' };
}

/** The table's layout of guards; a writer (`making`) that finds none makes it, as of now; `fresh`: as it is now. */
export const guardLayout = (making: boolean, fresh = false): Promise<MoveLayout> =>
  readMoveLayout(keys.labelGuardsLayout(), (since) => labelGuardsLayoutItem(since), 'moved_at', making, fresh);

/** Where this write keeps guards (the layout made by the first writer). */
export const writePlaces = async (): Promise<GuardPlaces> => guardPlaces(await guardLayout(true));

type Label = { id: number; slug: string };

const placed = (ws: string, norm: string): [keyof GuardPlaces, Key, string][] => [
  ['ws', keys.labelTitleGuard(ws, norm), ItemType.labelTitleGuard],
  ['own', keys.labelTitleGuardOwn(ws, norm), ItemType.labelTitleGuardOwn],
];

/** The parts that take the guards of folded title `norm` for `label` (named `<name>:ws`, `<name>:own`). */
export function takeGuards(ws: string, norm: string, label: Label, places: GuardPlaces, name: string): [string, TransactItem][] {
  return placed(ws, norm).flatMap(([where, key, type]): [string, TransactItem][] => {
    const hold = places[where];
    if (!hold) return [];
    const item = { ...key, type, workspace: ws, label_id: label.id, label_slug: label.slug };
    return [[`${name}:${where}`, tx.put(item, hold === 'held' ? { condition: 'attribute_not_exists(PK)' } : {})]];
  });
}

/** The parts that release the guards of folded title `norm` held for `label` (named `<name>:ws`, `<name>:own`). */
export function releaseGuards(ws: string, norm: string, label: Label, places: GuardPlaces, name: string): [string, TransactItem][] {
  return placed(ws, norm).flatMap(([where, key]): [string, TransactItem][] => {
    const hold = places[where];
    if (!hold) return [];
    return [[`${name}:${where}`, tx.delete(key, hold === 'held' ? { condition: 'label_id = :id', values: { ':id': label.id } } : {})]];
  });
}
