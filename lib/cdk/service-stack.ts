import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Cors, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { routes, type Route } from '#http/routes';
import { createAlarms } from './alarms.ts';
import { addDefaultTokenPlan, addRoute, createApi, createAuthorizerFunction, createCursorKey } from './api.ts';
import { addMethodNotAllowed } from './method-not-allowed.ts';
import { addOperationsDashboard } from './dashboard.ts';
import { createInbound, createStreamProcessor } from './messaging.ts';
import type { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';
import { createTable } from './table.ts';
import { createSecretsKey } from './secrets-key.ts';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { createWebhooks } from './webhooks.ts';
import { addWebAcl } from './web-acl.ts';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';

export interface ServiceStackProps extends StackProps {
  stage: StageConfig;
  /** Optional address that receives the alarm notifications. */
  alarmEmail?: string;
  /** Origins allowed by CORS; the API uses bearer tokens, not cookies, so `*` is safe by default. */
  corsOrigins?: string[];
  /** Publish outbound events to this existing EventBridge bus instead of a bus of the stack's own. */
  eventBusName?: string;
  /** Put the web ACL (a per-address rate rule) in front of the API: the stage's default when unset. */
  webAcl?: boolean;
  /** Whether the functions may open secrets sealed before data keys were per workspace (secrets-key.ts): true when unset. */
  legacySecrets?: boolean;
  /** The route table (default: the service's own). */
  routes?: readonly Route[];
}

/**
 * The whole service, built from the route table (functions/commons/http/routes.ts) and the table definition
 * (functions/commons/store/table.ts): a new route needs a row there and a handler, never an edit here. Its
 * parts: the table (table.ts), the API (api.ts), the stream and inbound sides (messaging.ts), webhooks (webhooks.ts), the alarms
 * (alarms.ts) and the dashboard (dashboard.ts).
 */
export class ServiceStack extends Stack {
  readonly table: Table;
  readonly api: RestApi;
  readonly bus: IEventBus;
  readonly secretsKey: Key;
  /** Whether its functions may open secrets sealed before data keys were per workspace (no workspace in their context). */
  readonly legacySecrets: boolean;
  readonly streamFailures: Queue;
  readonly inboundQueue: Queue;
  readonly inboundDeadLetters: Queue;
  readonly webhookQueue: Queue;
  readonly webhookRetries: Queue;
  readonly webhookDeadLetters: Queue;
  readonly functions = new Map<string, ServiceFunction>();
  readonly alarms: Alarm[] = [];
  readonly webAcl: CfnWebACL | undefined;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;
    this.table = createTable(this, stage);
    this.secretsKey = createSecretsKey(this, stage);
    this.legacySecrets = props.legacySecrets ?? true;
    const authorizerFn = createAuthorizerFunction(this, stage);
    const corsOrigins = props.corsOrigins ?? Cors.ALL_ORIGINS;
    this.api = createApi(this, stage, authorizerFn, corsOrigins);
    const cursorKey = createCursorKey(this, stage);
    for (const route of props.routes ?? routes) addRoute(this, route, stage, corsOrigins, cursorKey);
    addMethodNotAllowed(this.api, props.routes ?? routes, corsOrigins);
    addDefaultTokenPlan(this.api, stage);
    this.webAcl = (props.webAcl ?? stage.webAcl) ? addWebAcl(this, stage, this.api) : undefined;
    this.bus = props.eventBusName
      ? EventBus.fromEventBusName(this, 'Bus', props.eventBusName)
      : new EventBus(this, 'Bus', { eventBusName: stage.prefix, description: 'Outbound change events of projects and labels' });
    this.streamFailures = createStreamProcessor(this, stage);
    [this.inboundQueue, this.inboundDeadLetters] = createInbound(this, stage);
    [this.webhookQueue, this.webhookRetries, this.webhookDeadLetters] = createWebhooks(this, stage);
    const apiLatencyAlarm = createAlarms(this, stage, props.alarmEmail);
    const dashboard = addOperationsDashboard(this, {
      stage,
      api: this.api,
      table: this.table,
      functions: this.functions,
      streamFailures: this.streamFailures,
      inboundQueue: this.inboundQueue,
      inboundDeadLetters: this.inboundDeadLetters,
      webhookQueue: this.webhookQueue,
      webhookRetries: this.webhookRetries,
      webhookDeadLetters: this.webhookDeadLetters,
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
    new CfnOutput(this, 'StreamFailuresQueueUrl', {
      value: this.streamFailures.queueUrl,
      description: 'The stream batches given up on, for `npm run replay -- --queue-url`',
    });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName, description: 'The CloudWatch dashboard of this stage' });
  }
}
