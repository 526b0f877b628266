import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AlarmStatusWidget,
  AlarmStatusWidgetSortBy,
  CfnDashboard,
  Dashboard,
  GraphWidget,
  LegendPosition,
  MathExpression,
  TextWidget,
  type Alarm,
  type IAlarm,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '#observability/service';
import { PERIOD, serviceMetrics } from './serviceMetrics.ts';
import { throttleLines, throttleScopes } from './table-throttles.ts';
import type { StageConfig } from './stage.ts';

/** What the dashboard draws: the stack's parts, as `ServiceStack` keeps them. */
interface DashboardParts {
  stage: StageConfig;
  api: RestApi;
  table: ITable;
  /** Every function by its short name: one per route, `authorizer`, `stream-processor`, `inbound-consumer`, `webhook-deliverer`. */
  functions: ReadonlyMap<string, IFunction>;
  streamFailures: IQueue;
  inboundQueue: IQueue;
  inboundDeadLetters: IQueue;
  webhookQueue: IQueue;
  webhookRetries: IQueue;
  webhookDeadLetters: IQueue;
  /** Alarms whose states head the dashboard. */
  alarms: readonly IAlarm[];
  /** Drawn as its threshold line on the API latency graph. */
  apiLatencyAlarm?: Alarm;
}

/** Operations the handlers, the stream processor and the inbound consumer call (store/): their system errors. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * One CloudWatch dashboard, `<stage prefix>-operations`: alarm states, the API, the service's own metrics,
 * every function, the table, the stream and the queues. Built from the stack's parts, so a new route's
 * function appears on it without an edit here.
 */
export function addOperationsDashboard(scope: Construct, parts: DashboardParts): Dashboard {
  const { stage, api, table, functions } = parts;
  const streamProcessor = functions.get('stream-processor');
  if (!streamProcessor) throw new Error('the dashboard needs the stream processor (functions map key "stream-processor")');
  const emf = serviceMetrics(stage.prefix);
  const tableAndIndexes = throttleScopes(table);

  const depth = (q: IQueue, label: string) => q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD, label });
  const age = (q: IQueue, label: string) => q.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD, label });
  const graph = (title: string, left: IMetric[], more: Partial<ConstructorParameters<typeof GraphWidget>[0]> = {}) =>
    new GraphWidget({ title, left, width: 8, height: 6, ...more });
  const perFunction = (title: string, metric: (fn: IFunction, label: string) => IMetric) =>
    graph(
      title,
      [...functions].map(([name, fn]) => metric(fn, name)),
      { width: 12, height: 8, legendPosition: LegendPosition.RIGHT },
    );

  const rows: IWidget[][] = [
    [
      new TextWidget({
        width: 24,
        height: 3,
        markdown: [
          `# ${stage.prefix}: operations`,
          `Project and Label Management Service, stage **${stage.name}**. Alarm states; API Gateway; the service's own metrics`,
          `(namespace \`${METRICS_NAMESPACE}\`, service \`${stage.prefix}\`: requests by route and status class, conflict retries,`,
          '503s, cascades, events, cold starts); every Lambda function; the DynamoDB table (throttles per table and index);',
          'the stream processor; the queues.',
        ].join('\n'),
      }),
    ],
    [
      new AlarmStatusWidget({
        title: 'Alarms',
        alarms: [...parts.alarms],
        width: 24,
        height: 6,
        sortBy: AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
      }),
    ],
    [
      graph(
        'API latency (ms)',
        [
          api.metricLatency({ statistic: 'p50', period: Duration.minutes(1), label: 'Latency p50' }),
          api.metricLatency({ statistic: 'p99', period: Duration.minutes(1), label: 'Latency p99' }),
          api.metricIntegrationLatency({ statistic: 'p99', period: Duration.minutes(1), label: 'Integration latency p99' }),
        ],
        { leftAnnotations: parts.apiLatencyAlarm ? [parts.apiLatencyAlarm.toAnnotation()] : [] },
      ),
      graph('API requests', [api.metricCount({ statistic: 'Sum', period: PERIOD, label: 'Requests' })]),
      graph('API errors', [
        api.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4XX' }),
        api.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5XX' }),
      ]),
    ],
    [
      graph(
        'Answers by status class',
        [emf.total('Status2xx', '2xx'), emf.total('Status3xx', '3xx'), emf.total('Status4xx', '4xx'), emf.total('Status5xx', '5xx')],
        { width: 6 },
      ),
      graph('Requests by route', [emf.byRoute('Requests')], { width: 6 }),
      graph('4xx by route', [emf.byRoute('Status4xx')], { width: 6 }),
      graph('5xx by route', [emf.byRoute('Status5xx')], { width: 6 }),
    ],
    [
      graph('Conflict retries and 503s', [emf.total('ConflictRetries', 'Conflict retries'), emf.total('Unavailable', '503 answers')], {
        width: 6,
      }),
      graph(
        'Authorizer (cache misses)',
        [
          emf.total('TokensAccepted', 'Tokens accepted'),
          emf.total('TokensRefused', 'Tokens refused'),
          emf.total('AuthorizerFailures', 'Authorizer failures'),
        ],
        { width: 6 },
      ),
      graph('Items removed by delete cascades', [emf.total('CascadeItemsRemoved', 'Items removed')], { width: 6 }),
      graph(
        'Events',
        [
          emf.total('EventsPublished', 'Published'),
          emf.total('EventsApplied', 'Applied'),
          emf.total('EventsDropped', 'Dropped'),
          emf.total('EventsDeadLettered', 'Dead-lettered'),
        ],
        { width: 6 },
      ),
      graph('Cold starts by function', [emf.coldStarts()], { width: 6 }),
    ],
    [
      perFunction('Lambda errors', (fn, label) => fn.metricErrors({ statistic: 'Sum', period: PERIOD, label })),
      perFunction('Lambda throttles', (fn, label) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label })),
    ],
    [
      perFunction('Lambda duration p99 (ms)', (fn, label) => fn.metricDuration({ statistic: 'p99', period: PERIOD, label })),
      perFunction('Lambda concurrent executions (max)', (fn, label) =>
        fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD, label }),
      ),
    ],
    [
      graph(
        'Table consumed capacity (units)',
        [
          table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'Read' }),
          table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'Write' }),
          ...throttleScopes(table)
            .filter((scope) => scope.name !== 'table')
            .flatMap((index) =>
              (['Read', 'Write'] as const).map((kind) =>
                table.metric(`Consumed${kind}CapacityUnits`, {
                  dimensionsMap: index.dimensionsMap,
                  statistic: 'Sum',
                  period: PERIOD,
                  label: `${kind} ${index.name}`,
                }),
              ),
            ),
        ],
        { width: 12 },
      ),
      graph(
        'Table errors',
        [
          new MathExpression({
            label: 'System errors',
            expression: TABLE_OPERATIONS.map((op) => op.toLowerCase()).join(' + '),
            usingMetrics: Object.fromEntries(
              TABLE_OPERATIONS.map((op) => [
                op.toLowerCase(),
                table.metric('SystemErrors', { dimensionsMap: { TableName: table.tableName, Operation: op }, statistic: 'Sum' }),
              ]),
            ),
            period: PERIOD,
          }),
          table.metricUserErrors({ statistic: 'Sum', period: PERIOD, label: 'User errors (whole account and region)' }),
        ],
        { width: 12 },
      ),
    ],
    // One graph for the table and one per index (one-minute points, as the throttle alarm reads them): all its
    // throttled reads and writes, and those a hot partition key caused (the key-range ones).
    tableAndIndexes.map((scope) =>
      graph(`Throttled events: ${scope.name}`, throttleLines(table, scope), { width: Math.floor(24 / tableAndIndexes.length) }),
    ),
    [
      graph('Stream processor iterator age (ms)', [
        streamProcessor.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: 'Iterator age (max)' }),
      ]),
      graph('Inbound queue', [depth(parts.inboundQueue, 'Messages waiting')], {
        right: [age(parts.inboundQueue, 'Oldest message age (s)')],
      }),
      graph('Dead letters (messages)', [
        depth(parts.streamFailures, 'Stream failures'),
        depth(parts.inboundDeadLetters, 'Inbound dead letters'),
        depth(parts.webhookDeadLetters, 'Webhook dead letters'),
      ]),
    ],
    [
      graph('Webhook attempts', [
        emf.total('WebhookAttempts', 'Attempts'),
        emf.total('WebhookDeliveries', 'Delivered'),
        emf.total('WebhookAttemptsFailed', 'Failed attempts'),
        emf.total('WebhookDeliveriesFailed', "Deliveries exhausted (customers' endpoints, no page)"),
        emf.total('WebhookDeliveriesRequeued', 'Lost deliveries queued again (sweeps)'),
        emf.total('WebhookDeliveriesParked', 'Deliveries parked behind an open breaker'),
        emf.total('WebhookRecordRetries', 'Attempt records retried'),
      ]),
      graph('Webhook queues', [depth(parts.webhookQueue, 'Fresh events due'), depth(parts.webhookRetries, 'Retries due')], {
        right: [age(parts.webhookQueue, 'Oldest message age (s)'), age(parts.webhookRetries, 'Oldest retry age (s)')],
      }),
    ],
  ];

  const dashboard = new Dashboard(scope, 'OperationsDashboard', { dashboardName: `${stage.prefix}-operations`, widgets: rows });
  // The app tags every resource (service, stage), and CloudFormation takes Tags on a dashboard; cfn-lint's
  // schema (1.51) does not list them yet and calls them unexpected (E3002). Silenced on this resource only.
  (dashboard.node.defaultChild as CfnDashboard).addMetadata('cfn-lint', { config: { ignore_checks: ['E3002'] } });
  return dashboard;
}
