import { SPREAD_AFTER_MS } from './deployWindow';
import { keys } from './keys';
import { labelLinksLayoutItem } from './labelLinkLayout';
import { serviceShardedSince } from './serviceLayouts';

/**
 * When label-side links began to spread (epoch ms), as the service's LAYOUT item says (labelLinkLayout.ts): an attach
 * makes it, as of now, if none, and a function reads it once.
 */
export async function labelLinksSpreadAt(): Promise<number> {
  const since = await serviceShardedSince(keys.labelLinksLayout(), labelLinksLayoutItem, new Date().toISOString());
  return Date.parse(since!) + SPREAD_AFTER_MS;
}
