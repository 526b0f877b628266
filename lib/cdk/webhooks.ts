import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { EVENT_SOURCE, OUTBOUND_TYPES } from '#domain/eventNames';
import { webhookDelivererHandler } from '#http/routes';
import type { ServiceParts } from './parts.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/** Failed receives of one message (the deliverer itself failing, not an endpoint) before SQS sets it aside. */
const MAX_RECEIVES = 5;

/**
 * The webhook side: a rule takes every event the service publishes to the deliveries queue; the
 * deliverer (batches of 10, partial batch responses, every message at once) sends each to the webhooks
 * that want it, and puts its own retries back on the same queue with a delay (hops of at most 15
 * minutes: SQS's longest), so they outlive SQS's delay limit. A delivery that exhausts its attempts is
 * described on the dead-letter queue, as is a message the deliverer kept failing on; both alarm.
 */
export function createWebhooks(stack: ServiceParts, stage: StageConfig): [Queue, Queue] {
  const secure = { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED };
  const deadLetters = new Queue(stack, 'WebhookDeadLetters', {
    queueName: `${stage.prefix}-webhook-dead-letters`,
    ...secure,
    retentionPeriod: Duration.days(14),
  });
  // An attempt takes at most the endpoint's 10 s answer time; a batch of 10 runs its messages at once.
  const timeout = Duration.seconds(30);
  const queue = new Queue(stack, 'WebhookDeliveries', {
    queueName: `${stage.prefix}-webhook-deliveries`,
    ...secure,
    retentionPeriod: Duration.days(4),
    visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVES },
  });
  new Rule(stack, 'WebhookRule', {
    eventBus: stack.bus,
    description: "The service's own events, to the webhook deliveries queue",
    eventPattern: { source: [EVENT_SOURCE], detailType: [...OUTBOUND_TYPES] },
    targets: [new SqsQueue(queue)],
  });
  const fn = new ServiceFunction(stack, 'WebhookDeliverer', {
    name: 'webhook-deliverer',
    handler: webhookDelivererHandler,
    description: 'Webhook deliveries: every event to the webhooks that want it, signed, retried for a day',
    stage,
    table: stack.table,
    timeout,
  });
  fn.addEnvironment('WEBHOOK_QUEUE_URL', queue.queueUrl);
  fn.addEnvironment('WEBHOOK_DEAD_LETTER_QUEUE_URL', deadLetters.queueUrl);
  // Webhooks of a workspace (Query of its collection), deliveries and the webhook's health: items only, no Scan, no index.
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [stack.table.tableArn],
    }),
  );
  queue.grantSendMessages(fn);
  deadLetters.grantSendMessages(fn);
  fn.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }));
  stack.functions.set('webhook-deliverer', fn);
  return [queue, deadLetters];
}
