import { Duration } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { EVENT_SOURCE, OUTBOUND_TYPES } from '#domain/eventNames';
import { SWEEP_EVERY_MS } from '#webhooks/settings';
import { webhookDelivererHandler } from '#http/routes';
import type { ServiceParts } from './parts.ts';
import { grantTableAccess } from './table-access.ts';
import { CONSUMER_TABLE_ACCESS } from '#lib/tableAccess';
import { grantSecrets } from './secrets-key.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/** Failed receives of one message (the deliverer itself failing, not an endpoint) before SQS sets it aside. */
const MAX_RECEIVES = 5;

/** How many deliverers each lane may run at once: fresh events to healthy endpoints, and retries (and failing endpoints). */
const FRESH_CONCURRENCY = 50;
const RETRY_CONCURRENCY = 10;

/**
 * The webhook side: a rule takes every event the service publishes to the deliveries queue (the fresh
 * lane); the deliverer (batches of 10, partial batch responses, every message at once) sends each to
 * the webhooks that want it, and puts retries, and the deliveries of endpoints already failing, on the
 * retry queue with a delay (hops of at most 15 minutes: SQS's longest, so retries outlive it). Each
 * lane has its own concurrency cap: a failing endpoint never stands in the way of fresh events to
 * healthy ones, and neither lane takes the account's concurrency from the API. A message the
 * deliverer kept failing on, a malformed one and a delivery a sweep found lost a fourth time are
 * described on the dead-letter queue, which alarms; a delivery a customer's endpoint failed to the end is
 * only counted (WebhookDeliveriesFailed).
 */
export function createWebhooks(stack: ServiceParts, stage: StageConfig): [Queue, Queue, Queue] {
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
  const retries = new Queue(stack, 'WebhookRetries', {
    queueName: `${stage.prefix}-webhook-retries`,
    ...secure,
    retentionPeriod: Duration.days(4),
    visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVES },
  });
  new Rule(stack, 'WebhookRule', {
    eventBus: stack.bus,
    description: "The service's own events, to the webhook deliveries queue",
    // Only this stage's events (its table is their resource): stages on one shared bus never deliver each other's.
    eventPattern: { source: [EVENT_SOURCE], detailType: [...OUTBOUND_TYPES], resources: [stack.table.tableArn] },
    // What EventBridge cannot hand to the queue after its retries is kept on the dead-letter queue too.
    targets: [new SqsQueue(queue, { deadLetterQueue: deadLetters })],
  });
  // The sweeper's schedule (webhooks/sweeper.ts): a `sweep` message on the retry lane every few minutes,
  // so a delivery whose message was lost is queued again instead of waiting, pending, forever.
  new Rule(stack, 'WebhookSweep', {
    description: 'A sweep for lost webhook deliveries, on the retry lane',
    schedule: Schedule.rate(Duration.millis(SWEEP_EVERY_MS)),
    targets: [new SqsQueue(retries, { message: RuleTargetInput.fromObject({ kind: 'sweep' }), deadLetterQueue: deadLetters })],
  });
  const fn = new ServiceFunction(stack, 'WebhookDeliverer', {
    name: 'webhook-deliverer',
    namedRole: true,
    handler: webhookDelivererHandler,
    description: 'Webhook deliveries: every event to the webhooks that want it, signed, retried for a day',
    stage,
    table: stack.table,
    timeout,
    // It reads the retry queue and sends back to it: a wait of hours is hops of at most 15 minutes, which
    // Lambda's recursive-loop detection would stop after about 16 (the message dead-lettered, its delivery
    // left pending). The loop is bounded: each hop is one delivery's, and none goes past its due_at.
    recursiveLoop: RecursiveLoop.ALLOW,
  });
  fn.addEnvironment('WEBHOOK_RETRY_QUEUE_URL', retries.queueUrl);
  fn.addEnvironment('WEBHOOK_DEAD_LETTER_QUEUE_URL', deadLetters.queueUrl);
  // Webhooks of a workspace (Query of its collection), deliveries and the webhook's health: items of
  // the collections it keeps only (webhooks in their workspace's, deliveries one per webhook), and the
  // due index its sweeps read.
  grantTableAccess(fn, stack.table, CONSUMER_TABLE_ACCESS['webhook-deliverer']);
  retries.grantSendMessages(fn);
  deadLetters.grantSendMessages(fn);
  // It signs with the secrets (opens them) and never seals one.
  grantSecrets(stack.secretsKey, fn, 'open', stack.legacySecrets);
  fn.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: FRESH_CONCURRENCY }));
  fn.addEventSource(new SqsEventSource(retries, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: RETRY_CONCURRENCY }));
  stack.functions.set('webhook-deliverer', fn);
  // A recovery queues its deliveries' attempts on the retry lane itself (webhooks/recovery.ts).
  const recover = stack.functions.get('recover-webhook');
  if (recover) {
    recover.addEnvironment('WEBHOOK_RETRY_QUEUE_URL', retries.queueUrl);
    retries.grantSendMessages(recover);
  }
  return [queue, retries, deadLetters];
}
