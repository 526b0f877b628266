import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { sqsWebhookQueue } from '#webhooks/queue';

/**
 * The webhook deliveries queue's consumer (SQS event source, partial batch responses): the service's
 * events from the bus rule, and the retries it scheduled on the same queue. A delivery that exhausts
 * its attempts is described on the dead-letter queue, which alarms.
 */
const queue = sqsWebhookQueue(process.env.WEBHOOK_QUEUE_URL ?? '', process.env.WEBHOOK_DEAD_LETTER_QUEUE_URL ?? '');

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const { batchItemFailures } = await consumeWebhookMessages(event.Records, queue);
  return { batchItemFailures };
};
