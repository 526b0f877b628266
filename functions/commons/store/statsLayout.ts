import { ItemType, keys } from './keys';

/**
 * The service's LAYOUT item of a project's stats (projectStats.ts): since when this version counts them through the
 * stream. Pure, so the local tools make it with a new table (lib/local/database.ts).
 */
export const statsLayoutItem = (since: string) => ({ ...keys.statsLayout(), type: ItemType.statsLayout, sharded_since: since });
