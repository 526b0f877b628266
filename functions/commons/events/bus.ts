import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { EVENT_SOURCE } from '#domain/eventNames';
import type { OutboundEvent } from './outbound';

/** Where outbound events go: EventBridge on AWS; locally a file (lib/local/eventFile.ts), behind the same interface. */
export interface EventBus {
  publish(events: OutboundEvent[]): Promise<void>;
}

/** PutEvents takes at most 10 entries and 256 KB per call (a margin kept for what AWS adds to each entry). */
const ENTRIES_PER_CALL = 10;
const BYTES_PER_CALL = 200 * 1024;

/** Entries cut into calls of at most ENTRIES_PER_CALL entries and BYTES_PER_CALL bytes. */
function calls(entries: PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const out: PutEventsRequestEntry[][] = [];
  let current: PutEventsRequestEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.Detail ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Source ?? '');
    if (current.length && (current.length === ENTRIES_PER_CALL || bytes + size > BYTES_PER_CALL)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

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
      for (const part of calls(events.map((e) => entryOf(e, busName)))) {
        let entries = part;
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
