import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { functionId } from './parts.ts';
import { allThrottleEvents } from './table-throttles.ts';
import type { ServiceParts } from './parts.ts';
import type { StageConfig } from './stage.ts';
import type { MetricName } from '#observability/metrics';
import { METRICS_NAMESPACE } from '#observability/service';

/** The stack's alarms (docs/operations.md says what each means and what to do) and the topic they notify. */

/** How long the oldest unprocessed stream record may wait before the iterator-age alarm fires. */
const ITERATOR_AGE_ALARM = Duration.minutes(1);
/**
 * API p99 latency (ms, one-minute points) above which the latency alarm counts a breach. A warm request makes
 * one to a few single-digit-millisecond DynamoDB calls (BENCHMARKS.md: p99 16-75 ms locally, authorizer
 * included) and a cold start adds a few hundred ms, so a p99 over 1 s means DynamoDB, a dependency or the
 * functions are slow, not one unlucky cold start; 3 of 5 minutes keeps a lone slow minute from paging.
 */
const API_P99_LATENCY_ALARM_MS = 1000;
/**
 * Requests a minute below which the p99 alarm looks away: with a handful of requests p99 is simply the
 * slowest one (a cold authorizer and handler after a deploy), which is no sign of trouble.
 */
const API_P99_MIN_REQUESTS = 20;
/**
 * Failed webhook attempts as a percentage of all attempts, in five-minute points with at least 20
 * attempts. Plain metrics of the deliverer's route (an alarm takes no SEARCH expression).
 */
function webhookFailureRate(service: string): MathExpression {
  const count = (metricName: MetricName) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service, route: 'webhook-deliverer' },
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
  return new MathExpression({
    expression: 'IF(attempts >= 20, 100 * failed / attempts, 0)',
    usingMetrics: { attempts: count('WebhookAttempts'), failed: count('WebhookAttemptsFailed') },
    period: Duration.minutes(5),
    label: 'Failed webhook attempts (%)',
  });
}

/**
 * The authorizer's failures to check a token (the table failing, say), as it counts them itself. A
 * refused token is thrown (API Gateway's way to answer 401), which Lambda counts among the function's
 * errors, so any junk token from the internet would page on that count; and Lambda's errors less the
 * refusals would page too, the two counts landing in different periods (Lambda stamps the invocation,
 * the log metric its line). A timeout or a crash writes no metric: API Gateway answers it 5xx, which
 * the api-5xx alarm watches.
 */
function authorizerFailures(service: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: 'AuthorizerFailures' satisfies MetricName,
    dimensionsMap: { service, route: 'authorizer' },
    statistic: 'Sum',
    period: Duration.minutes(5),
  });
}

/**
 * The topic every alarm notifies. CloudWatch can publish only to a topic whose policy lets it and whose
 * key it may use: the AWS-managed `alias/aws/sns` key grants no service but SNS, so an alarm's notice to
 * a topic encrypted with it never arrives (only the alarm's history says the action failed). The key is
 * the stack's own, with CloudWatch allowed to use it; the topic allows CloudWatch's alarms of this
 * account to publish, over TLS only.
 */
function createAlarmTopic(stack: Stack, stage: StageConfig): Topic {
  const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
  const key = new Key(stack, 'AlarmTopicKey', {
    alias: `alias/${stage.prefix}-alarms`,
    description: `Encrypts the alarm notifications of ${stage.prefix} at rest (SNS); CloudWatch may use it to publish`,
    enableKeyRotation: true,
    // It keeps no data past the messages in flight: it goes with the stack (after KMS's waiting period).
    removalPolicy: RemovalPolicy.DESTROY,
    pendingWindow: Duration.days(7),
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToUseTheKey',
      principals: [cloudWatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
    }),
  );
  const topic = new Topic(stack, 'AlarmTopic', { topicName: `${stage.prefix}-alarms`, enforceSSL: true, masterKey: key });
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*` },
      },
    }),
  );
  return topic;
}

/** Every alarm notifies the alarm topic; returns the API latency alarm (the dashboard draws its threshold). */
export function createAlarms(
  stack: ServiceParts & {
    streamFailures: Queue;
    inboundQueue: Queue;
    inboundDeadLetters: Queue;
    webhookQueue: Queue;
    webhookRetries: Queue;
    webhookDeadLetters: Queue;
    alarms: Alarm[];
  },
  stage: StageConfig,
  alarmEmail: string | undefined,
): Alarm {
  const topic = createAlarmTopic(stack, stage);
  if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
  const action: IAlarmAction = new SnsAction(topic);
  const alarm = (id: string, a: Omit<ConstructorParameters<typeof Alarm>[2], 'evaluationPeriods'> & { evaluationPeriods?: number }) => {
    const created = new Alarm(stack, id, {
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      ...a,
    });
    created.addAlarmAction(action);
    stack.alarms.push(created);
    return created;
  };

  alarm('Api5xxAlarm', {
    alarmName: `${stage.prefix}-api-5xx`,
    alarmDescription: 'The API answered 5xx (handler failures, authorizer failures, timeouts).',
    metric: stack.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 5,
  });
  for (const [name, fn] of stack.functions) {
    alarm(`${functionId(name)}ErrorsAlarm`, {
      alarmName: `${stage.prefix}-${name}-errors`,
      ...(name === 'authorizer'
        ? {
            alarmDescription:
              'The authorizer failed to check tokens (not its refusals of bad tokens): requests answered 503. Its timeouts and crashes show as API 5xx.',
            metric: authorizerFailures(stage.prefix),
          }
        : {
            alarmDescription: `Function ${name} threw (errors the handler did not turn into a response).`,
            metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
          }),
      threshold: 1,
    });
  }
  alarm('StreamFailuresAlarm', {
    alarmName: `${stage.prefix}-stream-failures`,
    alarmDescription: 'Stream batches failed every retry and were set aside on the failure queue: events or counters are missing.',
    metric: stack.streamFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
  });
  alarm('StreamIteratorAgeAlarm', {
    alarmName: `${stage.prefix}-stream-iterator-age`,
    alarmDescription: 'The stream processor is falling behind: events, counters and cascades are late.',
    metric: stack.functions.get('stream-processor')!.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: ITERATOR_AGE_ALARM.toMilliseconds(),
  });
  alarm('InboundDeadLettersAlarm', {
    alarmName: `${stage.prefix}-inbound-dead-letters`,
    alarmDescription: 'Inbound events were malformed or kept failing: the stats they concern are missing them.',
    metric: stack.inboundDeadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
  });
  alarm('InboundQueueAgeAlarm', {
    alarmName: `${stage.prefix}-inbound-age`,
    alarmDescription: 'Inbound events wait in the queue: the consumer is failing or falling behind.',
    metric: stack.inboundQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: Duration.minutes(5).toSeconds(),
  });
  alarm('WebhookDeadLettersAlarm', {
    alarmName: `${stage.prefix}-webhook-dead-letters`,
    alarmDescription:
      "The webhook deliverer kept failing on a message (5 receives), a message was malformed, or a sweep found a delivery lost a fourth time: ours. (A delivery a customer's endpoint failed to the end is counted, never here.)",
    metric: stack.webhookDeadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
  });
  alarm('WebhookQueueAgeAlarm', {
    alarmName: `${stage.prefix}-webhook-age`,
    alarmDescription: 'Webhook messages wait past their due time: the deliverer is failing or falling behind.',
    // Retries wait in hops of at most 15 minutes, so a healthy queue holds nothing much older.
    metric: new MathExpression({
      label: 'Oldest webhook message (s)',
      expression: 'MAX([fresh, retries])',
      usingMetrics: {
        fresh: stack.webhookQueue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' }),
        retries: stack.webhookRetries.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' }),
      },
      period: Duration.minutes(5),
    }),
    threshold: Duration.minutes(30).toSeconds(),
  });
  alarm('WebhookFailureRateAlarm', {
    alarmName: `${stage.prefix}-webhook-failure-rate`,
    alarmDescription:
      'Over half of the webhook attempts failed for 15 minutes (with at least 20 attempts): endpoints, or the deliverer, are failing.',
    metric: webhookFailureRate(stage.prefix),
    threshold: 50,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 3,
  });
  alarm('TableThrottlesAlarm', {
    alarmName: `${stage.prefix}-table-throttles`,
    alarmDescription:
      'DynamoDB throttled reads or writes of the table or of one of its indexes (GSIs) in at least 3 of 5 one-minute periods: ' +
      'sustained throttling. A single throttled second is absorbed by the SDK retries and is not an incident; minutes of it are.',
    metric: allThrottleEvents(stack.table),
    threshold: 1,
    evaluationPeriods: 5,
    datapointsToAlarm: 3,
  });
  return alarm('ApiLatencyP99Alarm', {
    alarmName: `${stage.prefix}-api-latency-p99`,
    alarmDescription: `API p99 latency above ${API_P99_LATENCY_ALARM_MS} ms for 3 of 5 minutes with at least ${API_P99_MIN_REQUESTS} requests a minute: clients wait (DynamoDB, the authorizer or the handlers are slow).`,
    metric: new MathExpression({
      expression: `IF(requests >= ${API_P99_MIN_REQUESTS}, p99, 0)`,
      usingMetrics: {
        p99: stack.api.metricLatency({ period: Duration.minutes(1), statistic: 'p99' }),
        requests: stack.api.metricCount({ period: Duration.minutes(1), statistic: 'Sum' }),
      },
      period: Duration.minutes(1),
      label: 'API p99 latency (ms), busy minutes only',
    }),
    threshold: API_P99_LATENCY_ALARM_MS,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 5,
    datapointsToAlarm: 3,
  });
}
