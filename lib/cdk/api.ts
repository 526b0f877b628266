import { Aws, Duration, type Stack } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  Integration,
  IntegrationType,
  LogGroupLogDestination,
  Method,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { authorizerHandler, type Route } from '#http/routes';
import { BEARER_HEADER, DEFAULT_RATE_LIMIT } from '#domain/tokens';
import { methodThrottles } from '#lib/aws/methodThrottles';
import { usagePlanName } from '#lib/aws/usagePlanNames';
import { CORS_PREFLIGHT } from '#http/cors';
import { NO_STORE_HEADERS } from '#http/headers';
import { GATEWAY_PROBLEMS, gatewayProblemTemplate, gatewayStatus } from './gateway-responses.ts';
import { functionId, type ServiceParts } from './parts.ts';
import { grantTableAccess } from './table-access.ts';
import { CONSUMER_TABLE_ACCESS, routeTableAccess } from '#lib/tableAccess';
import { roomFor } from './rooms.ts';
import { grantSecrets } from './secrets-key.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/**
 * The API: the REST API with its stage, access logs, gateway responses and default usage plan, the
 * token authorizer, one function and method per route, and the key that signs pagination cursors.
 */

/** The TOKEN authorizer's identity validation: API Gateway refuses other headers without calling it. */
export const TOKEN_VALIDATION_REGEX = BEARER_HEADER.source;

/** The authorizer reads token items and nothing else: one GetItem on `TOKEN#` keys. */
export function createAuthorizerFunction(stack: ServiceParts, stage: StageConfig): ServiceFunction {
  const fn = new ServiceFunction(stack, 'Authorizer', {
    name: 'authorizer',
    handler: authorizerHandler,
    description: 'TOKEN authorizer: verifies the bearer token against its stored hash',
    stage,
    table: stack.table,
    timeout: Duration.seconds(10),
  });
  grantTableAccess(fn, stack.table, CONSUMER_TABLE_ACCESS.authorizer);
  stack.functions.set('authorizer', fn);
  return fn;
}

export function createApi(stack: Stack, stage: StageConfig, authorizerFn: ServiceFunction, corsOrigins: string[]): RestApi {
  const authorizer = new TokenAuthorizer(stack, 'TokenAuthorizer', {
    handler: authorizerFn,
    identitySource: 'method.request.header.Authorization',
    validationRegex: TOKEN_VALIDATION_REGEX,
    resultsCacheTtl: stage.authorizerCacheTtl,
  });
  const accessLogs = new LogGroup(stack, 'ApiAccessLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
  const api = new RestApi(stack, 'Api', {
    restApiName: stage.prefix,
    description: 'Project and Label Management Service',
    // Regional, not edge-optimized: requests reach the stage (and its web ACL) from the client's own
    // address, not from a CloudFront edge's, so a per-address rule counts each client, not each edge.
    endpointTypes: [EndpointType.REGIONAL],
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
    // The stage writes its logs through the account's CloudWatch role, which the account stack sets
    // (account-stack.ts, `npm run bootstrap`): one per account and Region, never a stage's to own.
    cloudWatchRole: false,
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
  const allowOrigin = gatewayAllowOrigin(corsOrigins);
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
  return api;
}

/**
 * Lets browsers read the gateway's own answers. A gateway response or a mock method cannot pick one of
 * several origins, so several configured origins get `*` there: these bodies carry no data, and the API
 * authenticates with bearer tokens, never cookies.
 */
export function gatewayAllowOrigin(corsOrigins: string[]): string {
  return corsOrigins.length === 1 ? corsOrigins[0]! : '*';
}

/**
 * The key that makes pagination cursors tamper-evident (an HMAC over query and position), generated
 * by the stack. CloudFormation resolves it into each function's CURSOR_KEY at deploy time.
 */
export function createCursorKey(stack: Stack, stage: StageConfig): Secret {
  return new Secret(stack, 'CursorKey', {
    secretName: `${stage.prefix}-cursor-key`,
    description: 'HMAC key of pagination cursors (changing it invalidates outstanding cursors: clients get 422 and start over)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: stage.removalPolicy,
  });
}

/**
 * A route: its function (in its room's nested stack: rooms.ts) and its method on the API (in the root,
 * with the API's other methods and paths).
 */
export function addRoute(stack: ServiceParts, route: Route, stage: StageConfig, corsOrigins: string[], cursorKey: Secret): void {
  const fn = new ServiceFunction(roomFor(stack, stage, route), functionId(route.name), {
    name: route.name,
    handler: route.handler,
    description: `${route.method} ${route.path}`,
    stage,
    table: stack.table,
    namedRole: route.secrets !== undefined,
  });
  // The handlers answer browsers with the same allowed origins as the preflight.
  fn.addEnvironment('CORS_ORIGINS', corsOrigins.join(','));
  fn.addEnvironment('CURSOR_KEY', cursorKey.secretValue.unsafeUnwrap());
  fn.addEnvironment('WORKSPACE_RATE_LIMITS', `rcu=${stage.workspaceRateLimits.read},wcu=${stage.workspaceRateLimits.write}`);
  grantTableAccess(fn, stack.table, routeTableAccess(route));
  if (route.secrets) grantSecrets(stack.secretsKey, fn, route.secrets, stack.legacySecrets);
  stack.functions.set(route.name, fn);
  // The proxy integration LambdaIntegration makes, without its permission, which it would put in the root
  // beside the method: the function's own permission, in its room, lets this method of this stage (by
  // name, so the room waits only for the API, not for the stage, which waits for the methods) invoke it.
  // No test-invoke permission: the console's test button is not a way this API is called.
  const integration = new Integration({
    type: IntegrationType.AWS_PROXY,
    integrationHttpMethod: 'POST',
    uri: `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${fn.functionArn}/invocations`,
  });
  resourceFor(stack.api, route.path).addMethod(route.method, integration);
  fn.addPermission('ApiInvoke', {
    principal: new ServicePrincipal('apigateway.amazonaws.com'),
    sourceArn: stack.api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), stage.name),
  });
}

/**
 * The plan of tokens with the default limits, once the routes' methods exist: the token CLI adds each
 * token's API key to the plan of its limits, creating plans for other limits by the same naming
 * (lib/aws/usagePlanNames.ts). Beside the token's limit, the methods the capacity model finds heavy at
 * their worst carry limits of their own (lib/aws/methodThrottles.ts).
 */
export function addDefaultTokenPlan(api: RestApi, stage: StageConfig): void {
  const throttle = methodThrottles(DEFAULT_RATE_LIMIT).flatMap((t) => {
    const method = resourceFor(api, t.path).node.tryFindChild(t.method);
    return method instanceof Method ? [{ method, throttle: { rateLimit: t.rateLimit, burstLimit: t.burstLimit } }] : [];
  });
  api.addUsagePlan('DefaultTokenPlan', {
    name: usagePlanName(api.restApiId, stage.name, DEFAULT_RATE_LIMIT),
    description: 'Rate limit of API tokens created with the default limits (one API key per token), and of their heavy methods.',
    throttle: { rateLimit: DEFAULT_RATE_LIMIT.rate, burstLimit: DEFAULT_RATE_LIMIT.burst },
    apiStages: [{ api, stage: api.deploymentStage, throttle }],
  });
}

function resourceFor(api: RestApi, path: string): IResource {
  return path
    .split('/')
    .filter(Boolean)
    .reduce<IResource>((parent, part) => parent.getResource(part) ?? parent.addResource(part), api.root);
}
