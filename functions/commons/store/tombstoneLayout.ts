import { ItemType, keys } from './keys';

/**
 * The service's LAYOUT item of deletes' marks (tombstones.ts): since when this version marks what it deletes, so that a
 * link checks the marks alone SPREAD_AFTER_MS after it (store/links.ts). Pure, as the local tools make it.
 */
export const tombstonesLayoutItem = (since: string) => ({
  ...keys.tombstonesLayout(),
  type: ItemType.tombstonesLayout,
  sharded_since: since,
});
