import type { DeadLetters } from './inbound';
import { lazySqsSend } from './sqs';

/**
 * Malformed inbound events, sent to the dead-letter queue with their reason as a message attribute
 * (SQS loaded at the first one: sqs.ts). Should SQS fail to load or answer, the put fails, the
 * message is reported as a batch item failure and SQS delivers it again, then moves it to the
 * dead-letter queue itself after the queue's receive count: delayed and without its reason, never lost.
 */
export function sqsDeadLetters(queueUrl: string, send = lazySqsSend()): DeadLetters {
  return {
    async put(body, reason) {
      await send({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
      });
    },
  };
}
