import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { sqsWebhookQueue } from '#webhooks/queue';

/**
 * The webhook queues' consumer (two SQS event sources, partial batch responses): the service's events
 * from the bus rule (the fresh lane), and the retries it schedules itself (the retry lane). A delivery
 * that exhausts its attempts is described on the dead-letter queue, which alarms.
 */
const queue = sqsWebhookQueue(process.env.WEBHOOK_RETRY_QUEUE_URL ?? '', process.env.WEBHOOK_DEAD_LETTER_QUEUE_URL ?? '');

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const { batchItemFailures } = await consumeWebhookMessages(event.Records, queue);
  return { batchItemFailures };
};
