import { createRequire } from 'node:module';
import type * as Sqs from '@aws-sdk/client-sqs';
import { AWS_CLIENT_TIMEOUTS } from '#store/awsTimeouts';

/**
 * SQS, loaded at the first message sent rather than bundled. Parsing the client would cost every cold
 * start of a function that sends (the inbound consumer's dead letters, the webhook deliverer's retries,
 * a recovery's attempts) about 9% of the floor's init (BENCHMARKS.md), for a path many containers never
 * take. Deployed, `require` finds the AWS SDK v3 the nodejs22.x runtime ships (its NODE_PATH holds
 * /var/runtime/node_modules); locally, the repository's own. Should it ever fail to load, the send
 * fails as any failed send does (each caller says what then).
 */
export type LoadSqs = () => typeof Sqs;

const loadSqs: LoadSqs = () => createRequire(import.meta.url)('@aws-sdk/client-sqs') as typeof Sqs;

/** SendMessage, with the client made (and the SDK loaded) at the first call. */
export function lazySqsSend(load: LoadSqs = loadSqs): (input: Sqs.SendMessageCommandInput) => Promise<void> {
  let sqs: { client: Sqs.SQSClient; SendMessageCommand: typeof Sqs.SendMessageCommand } | undefined;
  return async (input) => {
    if (!sqs) {
      const { SQSClient, SendMessageCommand } = load();
      sqs = { client: new SQSClient(AWS_CLIENT_TIMEOUTS), SendMessageCommand };
    }
    await sqs.client.send(new sqs.SendMessageCommand(input));
  };
}
