import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventBus } from '#events/bus';
import type { OutboundEvent } from '#events/outbound';
import { EVENT_SOURCE } from '#domain/eventNames';

/**
 * The local stand-in for the service's EventBridge bus: each event appended to a JSON Lines file as
 * EventBridge would deliver it (envelope and `detail`), so `npm run events:follow` (or `tail -f`)
 * shows what subscribers would receive.
 */
export function fileBus(path: string): EventBus {
  let ready: Promise<unknown> | undefined;
  return {
    async publish(events) {
      if (events.length === 0) return;
      ready ??= mkdir(dirname(path), { recursive: true });
      await ready;
      const lines = events.map((e) => JSON.stringify(busEnvelope(e)));
      await appendFile(path, `${lines.join('\n')}\n`);
    },
  };
}

/** An outbound event as EventBridge hands it to a rule's target (a file, a queue): envelope and `detail`. */
export function busEnvelope(e: OutboundEvent) {
  return {
    version: '0',
    id: e.detail.event_id,
    'detail-type': e.detailType,
    source: EVENT_SOURCE,
    account: 'local',
    time: e.time,
    region: 'local',
    resources: [],
    detail: e.detail,
  };
}

/** Every event to each bus in turn (the local bus's file, and its rules' targets). */
export function teeBus(...buses: EventBus[]): EventBus {
  return {
    async publish(events) {
      for (const bus of buses) await bus.publish(events);
    },
  };
}
