import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetters } from './inbound';

/** Malformed inbound events, sent to the dead-letter queue with their reason as a message attribute. */
export function sqsDeadLetters(queueUrl: string, client = new SQSClient({})): DeadLetters {
  return {
    async put(body, reason) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
        }),
      );
    },
  };
}
