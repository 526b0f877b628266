import type { DynamoDBRecord } from 'aws-lambda';
import { ItemType } from '#store/keys';

/**
 * The stream records the processor acts on: public items appearing or changing, and task links
 * going. Deployed, the event source mapping's filter (CDK stack) passes only these, so the processor
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

/** Records the deployed stream mapping hands the processor at most at once (lib/cdk/messaging.ts; the capacity model's batches). */
export const STREAM_BATCH_SIZE = 100;

export function reachesProcessor(record: DynamoDBRecord): boolean {
  const image = record.dynamodb;
  const fresh = image?.NewImage?.type?.S;
  if (fresh !== undefined) return PROCESSED_TYPES.includes(fresh);
  return record.eventName === 'REMOVE' && PROCESSED_REMOVALS.includes(image?.OldImage?.type?.S ?? '');
}
