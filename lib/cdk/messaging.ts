import { CfnResource, Duration } from 'aws-cdk-lib';
import { EventBus, Match as EventMatch, Rule } from 'aws-cdk-lib/aws-events';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { inboundConsumerHandler, streamProcessorHandler } from '#http/routes';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import { COUNTED_STATES, PROCESSED_REMOVALS, PROCESSED_TYPES, STREAM_BATCH_SIZE, WATCHED_WHILE_FAILING } from '#events/streamFilter';
import { CONSUMER_TIMEOUT_S } from '#events/patience';
import type { ServiceParts } from './parts.ts';
import { grantTableAccess } from './table-access.ts';
import { CONSUMER_TABLE_ACCESS } from '#lib/tableAccess';
import { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/** The message side: the stream processor and its failure queue, the inbound rule, queue, consumer and dead letters. */

/** Deliveries of an inbound message before SQS moves it to the dead-letter queue. */
const INBOUND_MAX_RECEIVES = 5;

/**
 * The stream processor: the table's stream (filtered to the records it acts on) in batches, retried
 * with bisection on error, a bounded number of times; a batch that still fails is described on the
 * failure queue (which alarms). It reads the stream, writes the table, and puts events on one bus.
 */
export function createStreamProcessor(stack: ServiceParts, stage: StageConfig): Queue {
  const failures = new Queue(stack, 'StreamFailures', {
    queueName: `${stage.prefix}-stream-failures`,
    enforceSSL: true,
    encryption: QueueEncryption.SQS_MANAGED,
    retentionPeriod: Duration.days(14),
  });
  const fn = new ServiceFunction(stack, 'StreamProcessor', {
    name: 'stream-processor',
    handler: streamProcessorHandler,
    description: "The table's stream: outbound events, derived counters, delete cascades",
    stage,
    table: stack.table,
    timeout: Duration.seconds(CONSUMER_TIMEOUT_S.streamProcessor),
  });
  fn.addEnvironment('EVENT_BUS_NAME', stack.bus.eventBusName);
  // Each event names this stage's table as its resource: the stage's rules take only their own stage's
  // events from a bus other stages publish to as well (-c eventBusName).
  fn.addEnvironment('EVENT_RESOURCES', stack.table.tableArn);
  stack.table.grantStreamRead(fn);
  grantTableAccess(fn, stack.table, CONSUMER_TABLE_ACCESS['stream-processor']);
  stack.bus.grantPutEventsTo(fn);
  // Events of the service's source are the stream processor's to publish: the deliverer signs what
  // arrives with it. A bus of the stack's own says so in its policy; a shared bus is its owner's (docs/webhooks.md).
  if (stack.bus instanceof EventBus) {
    // The policy resource written as CloudFormation spells it: the bus's addToResourcePolicy, and its L1
    // class, touch a deprecated property, which makes `npm run synth` print a warning.
    const statement = new PolicyStatement({
      sid: 'OnlyTheStreamProcessorPublishesTheServiceSource',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['events:PutEvents'],
      resources: [stack.bus.eventBusArn],
      conditions: { StringEquals: { 'events:source': EVENT_SOURCE }, ArnNotEquals: { 'aws:PrincipalArn': fn.role!.roleArn } },
    });
    new CfnResource(stack, 'BusPolicy', {
      type: 'AWS::Events::EventBusPolicy',
      properties: { EventBusName: stack.bus.eventBusName, StatementId: statement.sid, Statement: statement.toStatementJson() },
    });
  }
  const string = (values: string[]) => ({ S: FilterRule.or(...values) });
  const { type, attribute } = WATCHED_WHILE_FAILING;
  const failing = { type: string([type]), [attribute]: { S: FilterRule.exists() } };
  fn.addEventSource(
    new DynamoEventSource(stack.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: STREAM_BATCH_SIZE,
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(failures),
      // Five filters: Lambda's default quota per mapping (a sixth needs it raised, or two patterns merged).
      filters: [
        FilterCriteria.filter({ dynamodb: { NewImage: { type: string([...PROCESSED_TYPES]) } } }),
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('REMOVE'),
          dynamodb: { OldImage: { type: string([...PROCESSED_REMOVALS]) } },
        }),
        // A state whose change the stream counts (streamFilter.ts).
        FilterCriteria.filter({
          dynamodb: { NewImage: { type: string([COUNTED_STATES.type]), [COUNTED_STATES.attribute]: { BOOL: [true] } } },
        }),
        // A webhook's health (streamFilter.ts): showing a run of failures, or as it stops showing one.
        FilterCriteria.filter({ dynamodb: { NewImage: failing } }),
        FilterCriteria.filter({ dynamodb: { OldImage: failing } }),
      ],
    }),
  );
  stack.functions.set('stream-processor', fn);
  return failures;
}

/**
 * The inbound path: a rule on the bus takes the task, member and sprint events of the rest of the
 * product (any source but this service) to a queue; its consumer applies them in batches of 10 with
 * partial batch responses; a message that fails 5 deliveries, or is malformed (sent at once, with its
 * reason), lands on the dead-letter queue, which alarms.
 */
export function createInbound(stack: ServiceParts, stage: StageConfig): [Queue, Queue] {
  const secure = { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) };
  const deadLetters = new Queue(stack, 'InboundDeadLetters', { queueName: `${stage.prefix}-inbound-dead-letters`, ...secure });
  const consumerTimeout = Duration.seconds(CONSUMER_TIMEOUT_S.inboundConsumer);
  const queue = new Queue(stack, 'InboundEvents', {
    queueName: `${stage.prefix}-inbound`,
    ...secure,
    retentionPeriod: Duration.days(4),
    // AWS's advice for Lambda consumers: at least six times the function's timeout.
    visibilityTimeout: Duration.seconds(consumerTimeout.toSeconds() * 6),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: INBOUND_MAX_RECEIVES },
  });
  new Rule(stack, 'InboundRule', {
    eventBus: stack.bus,
    description: 'Task, member and sprint events of the rest of the product, to the inbound queue',
    eventPattern: { source: EventMatch.anythingBut(EVENT_SOURCE), detailType: [...INBOUND_TYPES] },
    // What EventBridge cannot hand to the queue after its retries (the queue's policy or key changed,
    // say) is kept on the dead-letter queue, which alarms, instead of being dropped.
    targets: [new SqsQueue(queue, { deadLetterQueue: deadLetters })],
  });
  const fn = new ServiceFunction(stack, 'InboundConsumer', {
    name: 'inbound-consumer',
    handler: inboundConsumerHandler,
    description: 'Inbound task, member and sprint events: the projects stats',
    stage,
    table: stack.table,
    timeout: consumerTimeout,
  });
  fn.addEnvironment('DEAD_LETTER_QUEUE_URL', deadLetters.queueUrl);
  grantTableAccess(fn, stack.table, CONSUMER_TABLE_ACCESS['inbound-consumer']);
  deadLetters.grantSendMessages(fn);
  fn.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }));
  stack.functions.set('inbound-consumer', fn);
  return [queue, deadLetters];
}
