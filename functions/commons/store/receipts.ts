import { ItemType, keys } from './keys';
import { tx, type TransactItem } from './transactions';

/**
 * A stream record's receipt: written with the change the record makes to a counter, conditionally, in a partition of
 * its own (RECEIPT#<event id>), so a redelivered record is recognised and changes nothing twice.
 */

/** Receipts outlive the stream's 24-hour retention, so no redelivery can come after its receipt expired. */
const RECEIPT_TTL_SECONDS = 2 * 24 * 3600;
/** Receipts per transaction, beside the counters and the project's check (DynamoDB's limit is 100 items). */
export const RECEIPTS_PER_TRANSACTION = 90;

/** The part (`receipt:<event id>`) that records the stream record `eventId` as applied; it fails when it was. */
export function receiptPart(ws: string, projectId: string, eventId: string): TransactItem {
  return tx.put(
    {
      ...keys.streamReceipt(eventId),
      type: ItemType.streamReceipt,
      workspace: ws,
      project_id: projectId,
      ttl: Math.floor(Date.now() / 1000) + RECEIPT_TTL_SECONDS,
    },
    { condition: 'attribute_not_exists(PK)' },
  );
}
