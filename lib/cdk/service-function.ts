import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { ApplicationLogLevel, Architecture, LoggingFormat, RecursiveLoop, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { lambdaBundling } from './bundling.ts';
import { repoRoot } from '#lib/paths';
import type { StageConfig } from './stage.ts';

export interface ServiceFunctionProps {
  /** Handler module relative to the repository root, as in the route table; it exports `handler`. */
  handler: string;
  /** Short name (the route name); the physical name is `<stage prefix>-<name>`. */
  name: string;
  stage: StageConfig;
  table: ITable;
  description?: string;
  timeout?: Duration;
  /** Whether Lambda may let a loop through SQS, SNS or S3 back to this function run on (default: it stops one). */
  recursiveLoop?: RecursiveLoop;
  /**
   * Its role is named as the function is (`roleName`), so that a policy in another stack can name it without
   * a reference back to this one (the secrets key's policy names the roles that may use the key).
   */
  namedRole?: boolean;
}

/**
 * Every function of the service: the defaults they share live here, so the stack adds a route in
 * one line and no function can drift from them (runtime, architecture, bundling, logs, tracing).
 * Table permissions are granted by the caller: they differ per function.
 */
export class ServiceFunction extends NodejsFunction {
  /** Its role's name, when it has one of its own (`namedRole`). */
  readonly roleName: string | undefined;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const functionName = `${props.stage.prefix}-${props.name}`;
    const role = props.namedRole
      ? new Role(scope, `${id}Role`, {
          roleName: functionName,
          assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
          managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
        })
      : undefined;
    super(scope, id, {
      functionName,
      ...(role ? { role } : {}),
      description: props.description,
      entry: join(repoRoot, props.handler),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: join(repoRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      // API Gateway gives up after 29 s; the DynamoDB client's bounded retries fit well inside this.
      timeout: props.timeout ?? Duration.seconds(20),
      tracing: Tracing.ACTIVE,
      recursiveLoop: props.recursiveLoop ?? RecursiveLoop.TERMINATE,
      bundling: lambdaBundling(),
      // JSON lines throughout: Lambda's own (START, REPORT) and the functions' (Powertools). Lambda
      // admits every application line (DEBUG and above); the level that decides is Powertools' own,
      // per stage (POWERTOOLS_LOG_LEVEL below, with debug sampling: observability/log.ts).
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel.INFO,
      applicationLogLevelV2: ApplicationLogLevel.DEBUG,
      logGroup: new LogGroup(scope, `${id}Logs`, {
        logGroupName: `/aws/lambda/${functionName}`,
        retention: props.stage.logRetention,
        removalPolicy: props.stage.removalPolicy,
      }),
      // No NODE_OPTIONS=--enable-source-maps: Node would read the map and measure every line of the
      // bundle at each cold start. The map ships beside the bundle and the error lines map their own
      // stacks when they are written (functions/commons/observability/stacks.ts).
      environment: {
        TABLE_NAME: props.table.tableName,
        POWERTOOLS_SERVICE_NAME: props.stage.prefix,
        POWERTOOLS_LOG_LEVEL: props.stage.logLevel,
        POWERTOOLS_LOGGER_SAMPLE_RATE: String(props.stage.logSampleRate),
      },
    });
    this.roleName = role ? functionName : undefined;
  }
}
