import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { chunk } from '#store/batches';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { EVENT_SOURCE } from '#domain/eventNames';
import type { OutboundEvent } from './outbound';

/** Where outbound events go: EventBridge on AWS; locally a file (lib/local/eventFile.ts), behind the same interface. */
export interface EventBus {
  publish(events: OutboundEvent[]): Promise<void>;
}

/** PutEvents takes at most 10 entries and 256 KB per call. */
const ENTRIES_PER_CALL = 10;

function entryOf(e: OutboundEvent, busName: string): PutEventsRequestEntry {
  return {
    Source: EVENT_SOURCE,
    DetailType: e.detailType,
    Detail: JSON.stringify(e.detail),
    Time: new Date(e.time),
    EventBusName: busName,
  };
}

/**
 * Publishes to an EventBridge bus. Entries EventBridge fails (throttling, internal errors) are sent
 * again with backoff; if some still fail the call throws, and the stream delivers the batch again
 * (consumers see a duplicate with the same `event_id`, never a gap).
 */
export function eventBridgeBus(busName: string, client = new EventBridgeClient({})): EventBus {
  return {
    async publish(events) {
      for (const part of chunk(events, ENTRIES_PER_CALL)) {
        let entries = part.map((e) => entryOf(e, busName));
        await withRetries(RETRY.unprocessed, 'EventBridge kept failing entries.', async () => {
          const out = await client.send(new PutEventsCommand({ Entries: entries }));
          if (!out.FailedEntryCount) return undefined;
          entries = entries.filter((_, i) => out.Entries?.[i]?.ErrorCode);
          return AGAIN;
        });
      }
    },
  };
}
