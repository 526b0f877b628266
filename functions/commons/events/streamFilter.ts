import type { DynamoDBRecord } from 'aws-lambda';
import { ItemType } from '#store/keys';

/**
 * The stream records the processor acts on: public items appearing or changing, task links going, counted states changing (COUNTED_STATES),
 * and a webhook's item while it shows a run of failures or as it stops (WATCHED_WHILE_FAILING). Deployed, the event source mapping's filter (CDK stack) passes only these, so the processor
 * is never invoked (nor billed) for the rest; locally the stream runner applies this same rule.
 */
export const PROCESSED_TYPES: readonly string[] = [
  ItemType.project,
  ItemType.label,
  ItemType.taskLink,
  ItemType.projectLabel,
  ItemType.detachNote,
  ItemType.projectDeletion,
  ItemType.labelDeletion,
];
/** Item types whose removal the processor acts on (a task link going: the counters move). */
export const PROCESSED_REMOVALS: readonly string[] = [ItemType.taskLink];
/**
 * A webhook's item reaches it only while it shows a run of failures, or as it stops showing one: its
 * health's events (events/outbound.ts) come from those changes, and a healthy webhook's changes never cost an invocation.
 */
export const WATCHED_WHILE_FAILING = { type: ItemType.webhook, attribute: 'failing_since' } as const;

/**
 * A task's, member's or sprint's state reaches it only when its change is counted through the stream (marked: store/projectStats.ts):
 * a state the version before wrote, with its counters on the project item, never costs an invocation.
 */
export const COUNTED_STATES = { type: ItemType.thingState, attribute: 'stats_by_stream' } as const;

/** Records the deployed stream mapping hands the processor at most at once (lib/cdk/messaging.ts; the capacity model's batches). */
export const STREAM_BATCH_SIZE = 100;

/** The deployed mapping's filters (lib/cdk/messaging.ts), any of which lets a record through. */
export function reachesProcessor(record: DynamoDBRecord): boolean {
  const { NewImage, OldImage } = record.dynamodb ?? {};
  const { type, attribute } = WATCHED_WHILE_FAILING;
  const failing = (image: typeof NewImage) => image?.type?.S === type && image[attribute]?.S !== undefined;
  const counted = NewImage?.type?.S === COUNTED_STATES.type && NewImage[COUNTED_STATES.attribute]?.BOOL === true;
  return (
    PROCESSED_TYPES.includes(NewImage?.type?.S ?? '') ||
    counted ||
    (record.eventName === 'REMOVE' && PROCESSED_REMOVALS.includes(OldImage?.type?.S ?? '')) ||
    failing(NewImage) ||
    failing(OldImage)
  );
}
