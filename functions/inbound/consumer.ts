import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsDeadLetters } from '#events/deadLetters';
import { consumeInbound } from '#events/inbound';
import { deadlineOf } from '#events/patience';

/**
 * The inbound queue's consumer (SQS event source, partial batch responses): task, member and sprint
 * events from the rest of the product, applied to the projects' stats. A failed message is delivered
 * again by SQS and, after the queue's few attempts, lands on the dead-letter queue; a malformed one
 * goes there at once, with its reason. A message the table throttles is applied again within the
 * invocation first (events/patience.ts), so throttling does not spend the queue's receives.
 */
const deadLetters = sqsDeadLetters(process.env.DEAD_LETTER_QUEUE_URL ?? '');

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const { batchItemFailures } = await consumeInbound(event.Records, deadLetters, deadlineOf(context));
  return { batchItemFailures };
};
