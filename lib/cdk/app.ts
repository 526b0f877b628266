import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Names, Stack, Tags, Validations, type CfnResource } from 'aws-cdk-lib';
import type { Route } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { origins, Refusal } from '#lib/settings/rules';
import cdkNag from 'cdk-nag';
import { ACCOUNT_STACK_NAME, AccountSettingsStack } from './account-stack.ts';
import { NOT_ALLOWED_METHOD } from './method-not-allowed.ts';
import { ServiceStack } from './service-stack.ts';
import { stageConfig, withThrottle } from './stage.ts';
import { opensLegacySecrets } from './secrets-key.ts';
import { wantsWebAcl } from './web-acl.ts';

/** The context block of cdk.json. */
function cdkJsonContext(): Record<string, unknown> {
  return (JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
}

// cdk-nag is CommonJS; Node's ESM loader sees its exports only through the default import.
const { AwsSolutionsChecks } = cdkNag;

export interface BuildAppOptions {
  /** Where the cloud assembly goes (default: CDK's choice, cdk.out under the CLI). */
  outdir?: string;
  /** Context values, as `-c key=value` would give them (stage, alarmEmail, corsOrigins). */
  context?: Record<string, unknown>;
  /** Run cdk-nag during synthesis (default true; a violation then fails the synth). */
  nag?: boolean;
  /** The route table (default: the service's; the headroom test synthesizes a larger one). */
  routes?: readonly Route[];
}

/**
 * The CDK app: one env-agnostic stack per stage, and the stack of the account-wide API Gateway setting
 * (account-stack.ts), which `npm run bootstrap` deploys once and `npm run deploy` leaves alone. cdk-nag's
 * AWS Solutions pack runs as a policy validation plugin (cdk-nag v3; v2's `NagSuppressions`/Aspects are
 * gone): any finding not acknowledged below fails `cdk synth`.
 */
export function buildApp(opts: BuildAppOptions = {}): { app: App; stack: ServiceStack; accountStack: AccountSettingsStack } {
  // cdk.json's context (the feature flags and the default stage) as the CLI passes it, so that the
  // tests synthesize the very template `cdk synth` and `cdk deploy` do.
  const context = { ...cdkJsonContext(), ...opts.context };
  const app = new App({ ...(opts.outdir ? { outdir: opts.outdir } : {}), context });
  const stage = withThrottle(
    stageConfig(app.node.tryGetContext('stage') ?? 'dev'),
    app.node.tryGetContext('stageRate'),
    app.node.tryGetContext('stageBurst'),
  );
  const alarmEmail = app.node.tryGetContext('alarmEmail') as string | undefined;
  const corsOrigins = app.node.tryGetContext('corsOrigins') as string | undefined;
  const eventBusName = app.node.tryGetContext('eventBusName') as string | undefined;
  const stack = new ServiceStack(app, `ProjectLabelService-${stage.name}`, {
    stage,
    description: `Project and Label Management Service (${stage.name})`,
    // One function, log group and alarm per route: indented, the template passes CloudFormation's 1 MB limit.
    suppressTemplateIndentation: true,
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(corsOrigins ? { corsOrigins: corsOriginsOf(corsOrigins) } : {}),
    ...(eventBusName ? { eventBusName } : {}),
    webAcl: wantsWebAcl(stage, app.node.tryGetContext('webAcl')),
    legacySecrets: opensLegacySecrets(app.node.tryGetContext('legacySecrets')),
    ...(opts.routes ? { routes: opts.routes } : {}),
  });
  const accountStack = new AccountSettingsStack(app, ACCOUNT_STACK_NAME, {
    description: "API Gateway's account-wide CloudWatch role (one per account and Region), for the Project and Label Management Service",
  });
  Tags.of(app).add('service', 'project-label-service');
  Tags.of(stack).add('stage', stage.name);
  acknowledgeAcceptedFindings(stack);
  Validations.of(accountStack).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    reason:
      'The AWS-maintained policy API Gateway needs to write execution and access logs; it is the documented role for that account setting.',
  });
  if (opts.nag !== false) {
    // The acknowledgments are checked here, at synthesis; written into the template as well, they were
    // 620 KB of its 877 KB (CloudFormation takes at most 1 MB).
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  }
  return { app, stack, accountStack };
}

/**
 * `-c corsOrigins`, the one value a deployer gives that a function reads (CORS_ORIGINS), checked here with
 * the local stack's rule (lib/settings/rules.ts): a wrong origin fails the synth, not every request.
 */
function corsOriginsOf(value: string): string[] {
  const list = origins.read(
    value
      .split(',')
      .map((o) => o.trim())
      .join(','),
  );
  if (list instanceof Refusal)
    throw new Error(`-c corsOrigins=${JSON.stringify(value)}${list.why ? ` (${list.why})` : ''}: use ${origins.accepts}.`);
  return list;
}

/** The cdk-nag findings this service accepts, each with its reason. Anything else fails synthesis. */
function acknowledgeAcceptedFindings(stack: ServiceStack): void {
  const tableArn = `<${logicalId(stack, stack.table.node.defaultChild as CfnResource)}.Arn>`;
  // The same ARN in a room (rooms.ts): a parameter the root passes, which CDK names after the table's construct.
  const tableArnInRooms = `<referenceto${Names.uniqueId(stack.table.node.defaultChild!)}Arn>`;
  const accepted = [
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS-maintained minimal policy for a function to write its own logs (CreateLogStream/PutLogEvents).',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) support no resource-level permissions, so AWS requires Resource "*".',
    },
    ...[tableArn, tableArnInRooms].map((arn) => ({
      id: `AwsSolutions-IAM5[Resource::${arn}/index/*]`,
      reason: "Handlers query the table's own GSIs (GSI1 by status, GSI2 by name); the grant is limited to the indexes of this one table.",
    })),
    {
      id: 'AwsSolutions-L1',
      reason:
        'Functions pin nodejs22.x on purpose: the runtime the service is built and tested for (bundles target node22); moving to a newer runtime is a deliberate, tested change, not a silent one.',
    },
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'Each handler validates its request with a zod schema and answers 422 listing every offending field (docs/api.md); an API Gateway request validator would reject first with a less precise body.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'The API authenticates its own bearer tokens with a Lambda TOKEN authorizer (docs/architecture.md), not with Cognito user pools.',
    },
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor HMAC key is resolved into function configuration at deploy time, so automatic rotation would not reach running functions; rotate it by redeploying with a new secret (outstanding cursors then answer 422).',
    },
  ];
  Validations.of(stack).acknowledge(...accepted);
  if (!stack.webAcl) {
    Validations.of(stack).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'This stage has no web ACL (dev by default, or -c webAcl=false): the API is token-authenticated and throttled per token and per stage; prod has one.',
    });
  }
  Validations.of(stack.streamFailures).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      "This queue is itself the stream processor's on-failure destination (a dead-letter queue): it holds descriptions of failed stream batches for an operator, with an alarm on its depth; nothing consumes it.",
  });
  // CORS preflight (OPTIONS) requests carry no Authorization header by the CORS standard.
  for (const method of stack.api.methods.filter((m) => m.httpMethod === 'OPTIONS')) {
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'CORS preflight requests carry no credentials by the CORS standard; the mock integration returns only CORS headers.',
    });
  }
  for (const method of stack.api.methods.filter((m) => m.httpMethod === NOT_ALLOWED_METHOD)) {
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: "A method no route takes: its mock integration answers 405 and the path's Allow list to everyone, and reaches nothing.",
    });
  }
}

function logicalId(stack: Stack, resource: CfnResource): string {
  return stack.resolve(resource.logicalId) as string;
}
