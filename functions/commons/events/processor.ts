import type { DynamoDBRecord } from 'aws-lambda';
import { applyCounters, runCascades } from '#domain/streamUpkeep';
import { changeOf } from '#store/streamRecords';
import type { EventBus } from './bus';
import { recordActivity } from './activity';
import { observeBatch } from './observeBatch';
import { eventsOf } from './outbound';
import { throughThrottling } from './patience';

export interface BatchOutcome {
  records: number;
  events: number;
  counted: number;
  rounds: number;
}

/**
 * Everything the service does with a batch of its table's stream, in order: build its events (before
 * a cascade round can remove a deletion job they read a label from), apply its link records to the
 * counters, run a round of each deletion job it carries, write their history entries, then publish the events (so when a
 * subscriber sees `Label Attached`, the stats already count it). Every step is idempotent, so when
 * one fails the whole batch can be delivered again (Lambda retries and bisects it; the local runner
 * retries it) and ends the same. A batch the table throttles is done again until `deadline` (epoch ms;
 * patience.ts) rather than failed at once; without one, it fails at once.
 */
export function processStreamBatch(records: DynamoDBRecord[], bus: EventBus, deadline = 0): Promise<BatchOutcome> {
  return observeBatch(
    'stream-processor',
    records.length,
    ['ConflictRetries', 'CascadeItemsRemoved'],
    async () => {
      // Step by step, each done again on its own while the table throttles it: a step that went through is not repeated.
      const patiently = <T>(step: () => Promise<T>) => throughThrottling(step, deadline);
      const changes = records.map(changeOf);
      const events = await patiently(() => eventsOf(changes));
      const counted = await patiently(() => applyCounters(changes));
      const rounds = await patiently(() => runCascades(changes));
      // The history before the bus: whoever hears of a change can read its entry.
      await patiently(() => recordActivity(events));
      await patiently(() => bus.publish(events));
      return { records: records.length, events: events.length, counted, rounds };
    },
    (o) => ({ fields: { events: o.events, counted: o.counted, cascade_rounds: o.rounds }, metrics: [['EventsPublished', o.events]] }),
  );
}
