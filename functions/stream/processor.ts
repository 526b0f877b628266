import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { eventBridgeBus } from '#events/bus';
import { deadlineOf } from '#events/patience';
import { processStreamBatch } from '#events/processor';

/**
 * The table's stream processor (DynamoDB event source): outbound events to the service's bus,
 * derived counters, and delete cascades. A thrown error makes Lambda retry the batch, bisecting it,
 * up to the mapping's retry limit; what still fails goes to the on-failure queue. A batch the table
 * throttles is done again within the invocation first (events/patience.ts), so throttling does not
 * spend those retries.
 */
const bus = eventBridgeBus({
  busName: process.env.EVENT_BUS_NAME ?? 'default',
  resources: process.env.EVENT_RESOURCES ? process.env.EVENT_RESOURCES.split(',') : [],
});

export const handler = async (event: DynamoDBStreamEvent, context: Context): Promise<void> => {
  await processStreamBatch(event.Records, bus, deadlineOf(context));
};
