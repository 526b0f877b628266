import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  Cors,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, StreamViewType, Table, TableEncryption, ProjectionType } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Match as EventMatch, Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { authorizerHandler, inboundConsumerHandler, routes, streamProcessorHandler, type Route } from '#http/routes';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import { PROCESSED_REMOVALS, PROCESSED_TYPES } from '#events/streamFilter';
import { TABLE } from '#store/table';
import { keys } from '#store/keys';
import { BEARER_HEADER, DEFAULT_RATE_LIMIT } from '#domain/tokens';
import { usagePlanName } from '#lib/aws/usagePlanNames';
import { CORS_PREFLIGHT } from '#http/cors';
import { NO_STORE_HEADERS } from '#http/headers';
import { addOperationsDashboard } from './dashboard.ts';
import { GATEWAY_PROBLEMS, gatewayProblemTemplate, gatewayStatus } from './gateway-responses.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/** The TOKEN authorizer's identity validation: API Gateway refuses other headers without calling it. */
export const TOKEN_VALIDATION_REGEX = BEARER_HEADER.source;

export interface ServiceStackProps extends StackProps {
  stage: StageConfig;
  /** Optional address that receives the alarm notifications. */
  alarmEmail?: string;
  /** Origins allowed by CORS; the API uses bearer tokens, not cookies, so `*` is safe by default. */
  corsOrigins?: string[];
  /** Publish outbound events to this existing EventBridge bus instead of a bus of the stack's own. */
  eventBusName?: string;
}

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
/** Deliveries of an inbound message before SQS moves it to the dead-letter queue. */
const INBOUND_MAX_RECEIVES = 5;

/**
 * The whole service, built from the route table (functions/commons/http/routes.ts) and the table definition
 * (functions/commons/store/table.ts): a new route needs a row there and a handler, never an edit here.
 */
export class ServiceStack extends Stack {
  readonly table: Table;
  readonly api: RestApi;
  readonly bus: IEventBus;
  readonly streamFailures: Queue;
  readonly inboundQueue: Queue;
  readonly inboundDeadLetters: Queue;
  readonly functions = new Map<string, ServiceFunction>();
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;
    this.table = this.createTable(stage);
    const authorizerFn = this.createAuthorizerFunction(stage);
    const corsOrigins = props.corsOrigins ?? Cors.ALL_ORIGINS;
    this.api = this.createApi(stage, authorizerFn, corsOrigins);
    const cursorKey = this.createCursorKey(stage);
    for (const route of routes) this.addRoute(route, stage, corsOrigins, cursorKey);
    this.bus = props.eventBusName
      ? EventBus.fromEventBusName(this, 'Bus', props.eventBusName)
      : new EventBus(this, 'Bus', { eventBusName: stage.prefix, description: 'Outbound change events of projects and labels' });
    this.streamFailures = this.createStreamProcessor(stage);
    [this.inboundQueue, this.inboundDeadLetters] = this.createInbound(stage);
    const apiLatencyAlarm = this.createAlarms(stage, props.alarmEmail);
    const dashboard = addOperationsDashboard(this, {
      stage,
      api: this.api,
      table: this.table,
      functions: this.functions,
      streamFailures: this.streamFailures,
      inboundQueue: this.inboundQueue,
      inboundDeadLetters: this.inboundDeadLetters,
      alarms: this.alarms,
      apiLatencyAlarm,
    });

    // RestApi adds its own `Endpoint` output; ApiUrl below replaces it under a stable, documented name.
    this.api.node.tryRemoveChild('Endpoint');
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API (stage included)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'TABLE_NAME for `npm run token` against this stack' });
    new CfnOutput(this, 'RestApiId', { value: this.api.restApiId, description: 'REST_API_ID for `npm run token` (API keys of tokens)' });
    new CfnOutput(this, 'StageName', { value: this.api.deploymentStage.stageName, description: 'STAGE_NAME for `npm run token`' });
    new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName, description: 'The bus outbound change events are published on' });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName, description: 'The CloudWatch dashboard of this stage' });
  }

  private createTable(stage: StageConfig): Table {
    const string = (name: string) => ({ name, type: AttributeType.STRING });
    const table = new Table(this, 'Table', {
      tableName: stage.prefix,
      partitionKey: string(TABLE.partitionKey),
      sortKey: string(TABLE.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: stage.deletionProtection,
      removalPolicy: stage.removalPolicy,
      timeToLiveAttribute: TABLE.timeToLive,
      stream: StreamViewType[TABLE.stream],
    });
    for (const index of Object.values(TABLE.indexes)) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: string(index.partitionKey),
        sortKey: string(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }

  /** The authorizer reads token items and nothing else: one GetItem on `TOKEN#` keys. */
  private createAuthorizerFunction(stage: StageConfig): ServiceFunction {
    const fn = new ServiceFunction(this, 'Authorizer', {
      name: 'authorizer',
      handler: authorizerHandler,
      description: 'TOKEN authorizer: verifies the bearer token against its stored hash',
      stage,
      table: this.table,
      timeout: Duration.seconds(10),
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.tokenPkPrefix}*`] } },
      }),
    );
    this.functions.set('authorizer', fn);
    return fn;
  }

  private createApi(stage: StageConfig, authorizerFn: ServiceFunction, corsOrigins: string[]): RestApi {
    const authorizer = new TokenAuthorizer(this, 'TokenAuthorizer', {
      handler: authorizerFn,
      identitySource: 'method.request.header.Authorization',
      validationRegex: TOKEN_VALIDATION_REGEX,
      resultsCacheTtl: stage.authorizerCacheTtl,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    const api = new RestApi(this, 'Api', {
      restApiName: stage.prefix,
      description: 'Project and Label Management Service',
      // Every method, present and future, goes through the token authorizer, and counts against the
      // usage plan of the API key the authorizer names for the token (its rate limit).
      defaultMethodOptions: { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true },
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      defaultCorsPreflightOptions: {
        allowOrigins: corsOrigins,
        allowMethods: [...CORS_PREFLIGHT.allowMethods],
        allowHeaders: [...CORS_PREFLIGHT.allowHeaders],
        exposeHeaders: [...CORS_PREFLIGHT.exposeHeaders],
        maxAge: Duration.seconds(CORS_PREFLIGHT.maxAgeSeconds),
      },
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: stage.removalPolicy,
      deployOptions: {
        stageName: stage.name,
        tracingEnabled: true,
        throttlingRateLimit: stage.throttle.rateLimit,
        throttlingBurstLimit: stage.throttle.burstLimit,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            extendedRequestId: '$context.extendedRequestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            httpMethod: '$context.httpMethod',
            resourcePath: '$context.resourcePath',
            path: '$context.path',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            principalId: '$context.authorizer.principalId',
            errorType: '$context.error.responseType',
            errorMessage: '$context.error.message',
          }),
        ),
      },
    });
    // Lets browsers read the gateway's own errors. A gateway response cannot pick one of several
    // origins, so several configured origins get `*` here: these bodies carry no data, and the API
    // authenticates with bearer tokens, never cookies.
    const allowOrigin = corsOrigins.length === 1 ? corsOrigins[0]! : '*';
    for (const problem of GATEWAY_PROBLEMS) {
      api.addGatewayResponse(`Gateway${problem.type.responseType}`, {
        type: problem.type,
        statusCode: String(gatewayStatus(problem)),
        responseHeaders: {
          'Content-Type': "'application/problem+json'",
          'Access-Control-Allow-Origin': `'${allowOrigin}'`,
          // As on the functions' answers; the request id is API Gateway's own x-amzn-RequestId here
          // (a gateway response can only map request parameters and constants into headers).
          ...Object.fromEntries(Object.entries(NO_STORE_HEADERS).map(([k, v]) => [k, `'${v}'`])),
          ...Object.fromEntries(Object.entries(problem.headers ?? {}).map(([k, v]) => [k, `'${v}'`])),
        },
        templates: { 'application/json': gatewayProblemTemplate(problem) },
      });
    }
    // The plan of tokens with the default limits; the token CLI adds each token's API key to the plan of
    // its limits, creating plans for other limits by the same naming (lib/aws/usagePlanNames.ts).
    api.addUsagePlan('DefaultTokenPlan', {
      name: usagePlanName(api.restApiId, stage.name, DEFAULT_RATE_LIMIT),
      description: 'Rate limit of API tokens created with the default limits (one API key per token).',
      throttle: { rateLimit: DEFAULT_RATE_LIMIT.rate, burstLimit: DEFAULT_RATE_LIMIT.burst },
      apiStages: [{ api, stage: api.deploymentStage }],
    });
    return api;
  }

  /**
   * The key that makes pagination cursors tamper-evident (an HMAC over query and position), generated
   * by the stack. CloudFormation resolves it into each function's CURSOR_KEY at deploy time.
   */
  private createCursorKey(stage: StageConfig): Secret {
    return new Secret(this, 'CursorKey', {
      secretName: `${stage.prefix}-cursor-key`,
      description: 'HMAC key of pagination cursors (changing it invalidates outstanding cursors: clients get 422 and start over)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: stage.removalPolicy,
    });
  }

  private addRoute(route: Route, stage: StageConfig, corsOrigins: string[], cursorKey: Secret): void {
    const fn = new ServiceFunction(this, functionId(route.name), {
      name: route.name,
      handler: route.handler,
      description: `${route.method} ${route.path}`,
      stage,
      table: this.table,
    });
    // The handlers answer browsers with the same allowed origins as the preflight.
    fn.addEnvironment('CORS_ORIGINS', corsOrigins.join(','));
    fn.addEnvironment('CURSOR_KEY', cursorKey.secretValue.unsafeUnwrap());
    if (route.access === 'read') this.table.grantReadData(fn);
    else this.table.grantReadWriteData(fn);
    this.functions.set(route.name, fn);
    // No test-invoke permission: the console's test button is not a way this API is called.
    this.resourceFor(route.path).addMethod(route.method, new LambdaIntegration(fn, { allowTestInvoke: false }));
  }

  /**
   * The stream processor: the table's stream (filtered to the records it acts on) in batches, retried
   * with bisection on error, a bounded number of times; a batch that still fails is described on the
   * failure queue (which alarms). It reads the stream, writes the table, and puts events on one bus.
   */
  private createStreamProcessor(stage: StageConfig): Queue {
    const failures = new Queue(this, 'StreamFailures', {
      queueName: `${stage.prefix}-stream-failures`,
      enforceSSL: true,
      encryption: QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
    });
    const fn = new ServiceFunction(this, 'StreamProcessor', {
      name: 'stream-processor',
      handler: streamProcessorHandler,
      description: "The table's stream: outbound events, derived counters, delete cascades",
      stage,
      table: this.table,
      timeout: Duration.minutes(1),
    });
    fn.addEnvironment('EVENT_BUS_NAME', this.bus.eventBusName);
    this.table.grantStreamRead(fn);
    fn.addToRolePolicy(this.itemAccess());
    this.bus.grantPutEventsTo(fn);
    const string = (values: string[]) => ({ S: FilterRule.or(...values) });
    fn.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(failures),
        filters: [
          FilterCriteria.filter({ dynamodb: { NewImage: { type: string([...PROCESSED_TYPES]) } } }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('REMOVE'),
            dynamodb: { OldImage: { type: string([...PROCESSED_REMOVALS]) } },
          }),
        ],
      }),
    );
    this.functions.set('stream-processor', fn);
    return failures;
  }

  /** What the stream processor and the inbound consumer use: key reads, base-table queries, item writes (no Scan, no index). */
  private itemAccess(): PolicyStatement {
    return new PolicyStatement({
      actions: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:ConditionCheckItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ],
      resources: [this.table.tableArn],
    });
  }

  /**
   * The inbound path: a rule on the bus takes the task, member and sprint events of the rest of the
   * product (any source but this service) to a queue; its consumer applies them in batches of 10 with
   * partial batch responses; a message that fails 5 deliveries, or is malformed (sent at once, with its
   * reason), lands on the dead-letter queue, which alarms.
   */
  private createInbound(stage: StageConfig): [Queue, Queue] {
    const secure = { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) };
    const deadLetters = new Queue(this, 'InboundDeadLetters', { queueName: `${stage.prefix}-inbound-dead-letters`, ...secure });
    const consumerTimeout = Duration.seconds(30);
    const queue = new Queue(this, 'InboundEvents', {
      queueName: `${stage.prefix}-inbound`,
      ...secure,
      retentionPeriod: Duration.days(4),
      // AWS's advice for Lambda consumers: at least six times the function's timeout.
      visibilityTimeout: Duration.seconds(consumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: INBOUND_MAX_RECEIVES },
    });
    new Rule(this, 'InboundRule', {
      eventBus: this.bus,
      description: 'Task, member and sprint events of the rest of the product, to the inbound queue',
      eventPattern: { source: EventMatch.anythingBut(EVENT_SOURCE), detailType: [...INBOUND_TYPES] },
      targets: [new SqsQueue(queue)],
    });
    const fn = new ServiceFunction(this, 'InboundConsumer', {
      name: 'inbound-consumer',
      handler: inboundConsumerHandler,
      description: 'Inbound task, member and sprint events: the projects stats',
      stage,
      table: this.table,
      timeout: consumerTimeout,
    });
    fn.addEnvironment('DEAD_LETTER_QUEUE_URL', deadLetters.queueUrl);
    fn.addToRolePolicy(this.itemAccess());
    deadLetters.grantSendMessages(fn);
    fn.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }));
    this.functions.set('inbound-consumer', fn);
    return [queue, deadLetters];
  }

  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter(Boolean)
      .reduce<IResource>((parent, part) => parent.getResource(part) ?? parent.addResource(part), this.api.root);
  }

  /** Every alarm notifies the alarm topic; returns the API latency alarm (the dashboard draws its threshold). */
  private createAlarms(stage: StageConfig, alarmEmail: string | undefined): Alarm {
    const topic = new Topic(this, 'AlarmTopic', {
      topicName: `${stage.prefix}-alarms`,
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsManagedKey', 'alias/aws/sns'),
    });
    if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
    const action: IAlarmAction = new SnsAction(topic);
    const alarm = (id: string, a: Omit<ConstructorParameters<typeof Alarm>[2], 'evaluationPeriods'> & { evaluationPeriods?: number }) => {
      const created = new Alarm(this, id, {
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...a,
      });
      created.addAlarmAction(action);
      this.alarms.push(created);
      return created;
    };

    alarm('Api5xxAlarm', {
      alarmName: `${stage.prefix}-api-5xx`,
      alarmDescription: 'The API answered 5xx (handler failures, authorizer failures, timeouts).',
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 5,
    });
    for (const [name, fn] of this.functions) {
      alarm(`${functionId(name)}ErrorsAlarm`, {
        alarmName: `${stage.prefix}-${name}-errors`,
        alarmDescription: `Function ${name} threw (errors the handler did not turn into a response).`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
      });
    }
    alarm('StreamFailuresAlarm', {
      alarmName: `${stage.prefix}-stream-failures`,
      alarmDescription: 'Stream batches failed every retry and were set aside on the failure queue: events or counters are missing.',
      metric: this.streamFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
    });
    alarm('StreamIteratorAgeAlarm', {
      alarmName: `${stage.prefix}-stream-iterator-age`,
      alarmDescription: 'The stream processor is falling behind: events, counters and cascades are late.',
      metric: this.functions.get('stream-processor')!.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: ITERATOR_AGE_ALARM.toMilliseconds(),
    });
    alarm('InboundDeadLettersAlarm', {
      alarmName: `${stage.prefix}-inbound-dead-letters`,
      alarmDescription: 'Inbound events were malformed or kept failing: the stats they concern are missing them.',
      metric: this.inboundDeadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
    });
    alarm('InboundQueueAgeAlarm', {
      alarmName: `${stage.prefix}-inbound-age`,
      alarmDescription: 'Inbound events wait in the queue: the consumer is failing or falling behind.',
      metric: this.inboundQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: Duration.minutes(5).toSeconds(),
    });
    alarm('TableThrottlesAlarm', {
      alarmName: `${stage.prefix}-table-throttles`,
      alarmDescription: 'DynamoDB throttled reads or writes on the table.',
      metric: new MathExpression({
        label: 'Throttled events',
        expression: 'reads + writes',
        usingMetrics: {
          reads: this.table.metric('ReadThrottleEvents', { statistic: 'Sum' }),
          writes: this.table.metric('WriteThrottleEvents', { statistic: 'Sum' }),
        },
        period: Duration.minutes(5),
      }),
      threshold: 1,
    });
    return alarm('ApiLatencyP99Alarm', {
      alarmName: `${stage.prefix}-api-latency-p99`,
      alarmDescription: `API p99 latency above ${API_P99_LATENCY_ALARM_MS} ms for 3 of 5 minutes with at least ${API_P99_MIN_REQUESTS} requests a minute: clients wait (DynamoDB, the authorizer or the handlers are slow).`,
      metric: new MathExpression({
        expression: `IF(requests >= ${API_P99_MIN_REQUESTS}, p99, 0)`,
        usingMetrics: {
          p99: this.api.metricLatency({ period: Duration.minutes(1), statistic: 'p99' }),
          requests: this.api.metricCount({ period: Duration.minutes(1), statistic: 'Sum' }),
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
}

/** `get-project` -> `GetProject`: stable logical ids derived from route names. */
export function functionId(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());
}
