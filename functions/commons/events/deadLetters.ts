import { createRequire } from 'node:module';
import type * as Sqs from '@aws-sdk/client-sqs';
import type { DeadLetters } from './inbound';

/**
 * The SQS client, loaded at the first dead letter rather than bundled. Parsing it would cost every
 * cold start of the consumer about 9% of the floor's init (BENCHMARKS.md) for a path most containers
 * never take. Deployed, `require` finds the AWS SDK v3 the nodejs22.x runtime ships (its NODE_PATH
 * holds /var/runtime/node_modules); locally, the repository's own. Should it ever fail to load, the
 * put fails, the message is reported as a batch item failure and SQS delivers it again, then moves it
 * to the dead-letter queue itself after the queue's receive count: delayed and without its reason,
 * never lost.
 */
const loadSqs = (): typeof Sqs => createRequire(import.meta.url)('@aws-sdk/client-sqs') as typeof Sqs;

/** Malformed inbound events, sent to the dead-letter queue with their reason as a message attribute. */
export function sqsDeadLetters(queueUrl: string, load: () => typeof Sqs = loadSqs): DeadLetters {
  let sqs: { client: Sqs.SQSClient; SendMessageCommand: typeof Sqs.SendMessageCommand } | undefined;
  return {
    async put(body, reason) {
      if (!sqs) {
        const { SQSClient, SendMessageCommand } = load();
        sqs = { client: new SQSClient({}), SendMessageCommand };
      }
      await sqs.client.send(
        new sqs.SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
        }),
      );
    },
  };
}
