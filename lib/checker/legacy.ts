import { ItemType, keys } from '#store/keys';

type Item = Record<string, any>;

/**
 * What earlier versions kept where the service no longer reads it: `npm run rekey` moves each, and
 * `npm run check:table` names each until it has.
 */

/** A stream receipt still in its project's collection (before receipts had partitions of their own). */
export const isLegacyReceipt = (i: Item) => i.type === ItemType.streamReceipt && String(i.SK).startsWith(keys.legacyReceiptSkPrefix);

/** What earlier versions kept in the workspace's collection that the webhooks room keeps on its own partitions now. */
const WEBHOOK_ROOM_ITEMS = new Set<string>([ItemType.webhook, ItemType.sendSlot, ItemType.webhookCount]);
/** A webhook, a send slot or the webhooks' count still in the workspace's collection (before the webhooks room had partitions of its own). */
export const isLegacyWebhookItem = (i: Item) => WEBHOOK_ROOM_ITEMS.has(i.type) && String(i.PK).startsWith(keys.partitionPrefixes.workspace);

/** Each such item, said as a violation. */
export function legacyViolations(items: Item[]): string[] {
  return [
    ...items
      .filter(isLegacyReceipt)
      .map(
        (i) =>
          `stream receipt ${i.PK} / ${i.SK} is in its project's collection, where a record delivered again misses it; npm run rekey moves it`,
      ),
    ...items
      .filter(isLegacyWebhookItem)
      .map(
        (i) => `${i.type} ${i.PK} / ${i.SK} is in the workspace's collection, where the service no longer reads it; npm run rekey moves it`,
      ),
  ];
}
