import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { AWS_CLIENT_TIMEOUTS } from '#store/awsTimeouts';
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

export interface EventBridgeTarget {
  busName: string;
  /**
   * The envelope's `resources` of every event: the ARN of the table the change was made in, which tells
   * one stage's events from another's on a shared bus (the stack's own rules match on it).
   */
  resources?: string[];
  client?: EventBridgeClient;
}

function entryOf(e: OutboundEvent, target: EventBridgeTarget): PutEventsRequestEntry {
  return {
    Source: EVENT_SOURCE,
    DetailType: e.detailType,
    Detail: JSON.stringify(e.detail),
    Time: new Date(e.time),
    EventBusName: target.busName,
    ...(target.resources?.length ? { Resources: target.resources } : {}),
  };
}

/**
 * Publishes to an EventBridge bus. Entries EventBridge fails (throttling, internal errors) are sent
 * again with backoff; if some still fail the call throws, and the stream delivers the batch again
 * (consumers see a duplicate with the same `event_id`, never a gap).
 */
export function eventBridgeBus(target: EventBridgeTarget): EventBus {
  const client = target.client ?? new EventBridgeClient(AWS_CLIENT_TIMEOUTS);
  return {
    async publish(events) {
      for (const part of calls(events.map((e) => entryOf(e, target)))) {
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
