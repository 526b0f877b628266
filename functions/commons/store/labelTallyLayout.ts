import { ItemType, keys } from './keys';

/**
 * Where a workspace's label count and label id counter are (its tally: labelTally.ts), pure: the local tools make the
 * layout item, the store reads it. The version before keeps them in the workspace's partition (`WS#<ws>` / `LABELCOUNT`,
 * `COUNTER#LABEL_ID`); this one in a partition of its own per workspace (`LABEL#<ws>#TALLY`), so that a label's create
 * or delete writes its workspace's partition no more than its label item.
 *
 * A workspace's tally moves once, by the service's LAYOUT item (`WS#` / `LAYOUT#LABELTALLY`), which this version's first
 * label write makes:
 * - for SPREAD_AFTER_MS and a clock's skew from then (while a function of the version before may still run), the
 *   workspace's items hold;
 *   this version's writes condition on their not being sealed;
 * - from then, the first create or delete in a workspace moves its tally: in one transaction it seals the workspace's
 *   items (as read: a writer that still goes by them fails, reads again and finds them sealed) and puts their values
 *   in the own ones; the own ones hold from then;
 * - once `npm run rekey` has moved every workspace's (`moved_at`), functions go to the own ones without looking.
 * A table the local tools make new has the item as of long ago, moved: own ones alone.
 */
export const labelTallyLayoutItem = (since: string, movedAt?: string) => ({
  ...keys.labelTallyLayout(),
  type: ItemType.labelTallyLayout,
  sharded_since: since,
  ...(movedAt === undefined ? {} : { moved_at: movedAt }),
});
