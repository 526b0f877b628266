import { readWorkspaceRateLimits } from '#domain/workspaceRateLimitsSetting';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, test } from 'vitest';
import { EVENT_SOURCE, OUTBOUND_TYPES } from '#domain/eventNames';
import { reachesProcessor } from '#events/streamFilter';
import { routes } from '#http/routes';
import { createTableInput } from '#local/database';
import { TOKEN_VALIDATION_REGEX } from '#cdk/api';
import { functionId } from '#cdk/parts';
import { methodThrottles } from '#lib/aws/methodThrottles';
import { DEFAULT_RATE_LIMIT } from '#domain/tokens';
import { repoRoot } from '#lib/paths';
import { allowedMethods } from '#http/allowedMethods';
import { GATEWAY_UNAUTHORIZED_DETAIL, REFUSAL_CONTEXT_KEY, refusalDetail } from '#wire/tokenRefusals';
import { synthesize, type Synthesized } from './synth.ts';

// A synthesized template is untyped JSON; the assertions below walk it freely.
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:TransactWriteItems',
];

let synth: Synthesized;
let resources: Record<string, Resource>;

beforeAll(() => {
  // As `npm run synth` does it (cdk-nag enforcing), but without bundling fifteen functions: the
  // template is the same but for asset hashes; bundling.test.ts covers CDK's bundling of a function.
  synth = synthesize({ stage: 'dev', bundle: false });
  resources = synth.template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const ref = (value: unknown) => (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0];

/** API Gateway resource logical id -> its full path, by walking ParentId up to the root. */
function resourcePaths(): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const props = resources[id]!.Properties;
    const parent = ref(props.ParentId);
    const path = `${resources[parent!]?.Type === 'AWS::ApiGateway::Resource' ? pathOf(parent!) : ''}/${props.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType('AWS::ApiGateway::Resource')) pathOf(id);
  return paths;
}

function methodFor(method: string, path: string): Resource | undefined {
  const paths = resourcePaths();
  return ofType('AWS::ApiGateway::Method')
    .map(([, r]) => r)
    .find((r) => {
      const resourceId = ref(r.Properties.ResourceId);
      const methodPath = resourceId && paths.has(resourceId) ? paths.get(resourceId) : '/';
      return r.Properties.HttpMethod === method && methodPath === path;
    });
}

function functionLogicalId(name: string): string {
  const id = ofType('AWS::Lambda::Function').find(([logicalId]) => new RegExp(`^${functionId(name)}[0-9A-F]{8}$`).test(logicalId))?.[0];
  if (!id) throw new Error(`no function for ${name}`);
  return id;
}

/** Every statement of every inline policy attached to the function's role. */
function statementsOf(functionName: string): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
  const role = ref(resources[functionLogicalId(functionName)]!.Properties.Role);
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as unknown[]).some((r) => ref(r) === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (name: string) => statementsOf(name).flatMap((s) => [s.Action].flat());
/** The physical name of the queue a reference (Ref or Fn::GetAtt) points at. */
const queueName = (value: unknown) => resources[ref(value)!]!.Properties.QueueName as string;
/** Logical id of the queue of that physical name. */
function queueId(name: string): string {
  const id = ofType('AWS::SQS::Queue').find(([, q]) => q.Properties.QueueName === name)?.[0];
  if (!id) throw new Error(`no queue ${name}`);
  return id;
}

/** The methods no token guards: CORS preflight, and the mock answering 405 for the methods a path does not take. */
const OPEN_METHODS = new Set(['OPTIONS', 'ANY']);
const routeMethods = () => ofType('AWS::ApiGateway::Method').filter(([, r]) => !OPEN_METHODS.has(r.Properties.HttpMethod));

describe('routes', () => {
  test.each(routes.map((r) => [r.name, r] as const))(
    '%s is a method behind the token authorizer, integrated with its own function',
    (_name, route) => {
      const method = methodFor(route.method, route.path);
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      const [authorizerId] = ofType('AWS::ApiGateway::Authorizer')[0]!;
      expect(method!.Properties.AuthorizationType).toBe('CUSTOM');
      expect(ref(method!.Properties.AuthorizerId)).toBe(authorizerId);
      expect(method!.Properties.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(method!.Properties.Integration.Uri)).toContain(functionLogicalId(route.name));
    },
  );

  test.each(routes.map((r) => [r.name, r] as const))(
    '%s: its function lets API Gateway invoke it for its own method of this stage, and nothing else',
    (_name, route) => {
      const fn = functionLogicalId(route.name);
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => ref(p.Properties.FunctionName) === fn);
      expect(permissions).toHaveLength(1);
      const [[, permission]] = permissions as [[string, Resource]];
      expect(permission.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      const [, parts] = permission.Properties.SourceArn['Fn::Join'] as [string, unknown[]];
      const [[apiId]] = ofType('AWS::ApiGateway::RestApi') as [[string, Resource]];
      expect(parts.some((p) => ref(p) === apiId)).toBe(true);
      const tail = parts.at(-1) as string;
      expect(tail).toBe(`/dev/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`);
    },
  );

  // The method names its function through the room's output, named after the function's construct (as
  // its physical name is after the route): another function is another output, so a new deployment.
  test("the API's deployment changes when a method's function is another (the stage would keep calling the old one)", () => {
    const deploymentOf = (s: Synthesized) =>
      Object.entries(s.template.toJSON().Resources as Record<string, Resource>).find(
        ([, r]) => r.Type === 'AWS::ApiGateway::Deployment',
      )![0];
    const renamed = routes.map((r) => (r.name === 'get-project' ? { ...r, name: 'get-project-renamed' } : r));
    const same = synthesize({ stage: 'dev', bundle: false, nag: false });
    expect(deploymentOf(synthesize({ stage: 'dev', bundle: false, nag: false, routes: [...routes] }))).toBe(deploymentOf(same));
    expect(deploymentOf(synthesize({ stage: 'dev', bundle: false, nag: false, routes: renamed }))).not.toBe(deploymentOf(same));
  });

  test('no method other than CORS preflight and the 405 mocks is reachable without the authorizer, and those reach no function', () => {
    const open = ofType('AWS::ApiGateway::Method').filter(
      ([, r]) => !OPEN_METHODS.has(r.Properties.HttpMethod) && r.Properties.AuthorizationType !== 'CUSTOM',
    );
    expect(open).toEqual([]);
    expect(routeMethods()).toHaveLength(routes.length);
    for (const [id, m] of ofType('AWS::ApiGateway::Method').filter(([, r]) => OPEN_METHODS.has(r.Properties.HttpMethod)))
      expect(m.Properties.Integration.Type, id).toBe('MOCK');
  });

  test("per-token rate limits: the API's keys come from the authorizer and every route requires one", () => {
    const [[, api]] = ofType('AWS::ApiGateway::RestApi') as [[string, Resource]];
    expect(api.Properties.ApiKeySourceType).toBe('AUTHORIZER');
    const methods = routeMethods();
    expect(methods).toHaveLength(routes.length);
    for (const [id, m] of methods) expect(m.Properties.ApiKeyRequired, id).toBe(true);
    // A preflight carries no token, and a 405 answers every caller alike: they need no key either.
    for (const [, m] of ofType('AWS::ApiGateway::Method').filter(([, r]) => OPEN_METHODS.has(r.Properties.HttpMethod)))
      expect(m.Properties.ApiKeyRequired).not.toBe(true);
  });

  test('the usage plan of the default token limits throttles the stage at 100 requests per second, burst 200', () => {
    const plans = ofType('AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    const [[, plan]] = plans as [[string, Resource]];
    expect(plan.Properties.Throttle).toEqual({ RateLimit: 100, BurstLimit: 200 });
    expect(plan.Properties.ApiStages).toEqual([
      expect.objectContaining({ ApiId: { Ref: expect.any(String) }, Stage: { Ref: expect.any(String) } }),
    ]);
    // Named as the token CLI looks plans up: pls-<api id>-<stage>-<rate>rps-<burst>burst.
    expect(JSON.stringify(plan.Properties.UsagePlanName)).toMatch(/"pls-".*"-dev-100rps-200burst"/);
    // No API key in the template: the token CLI makes one per token.
    expect(ofType('AWS::ApiGateway::ApiKey')).toEqual([]);
  });

  test("the heavy methods carry limits of their own in the plan, derived from the capacity model's figures at the limits", () => {
    const [[, plan]] = ofType('AWS::ApiGateway::UsagePlan') as [[string, Resource]];
    const throttles = (plan.Properties.ApiStages as { Throttle?: Record<string, { RateLimit: number; BurstLimit: number }> }[])[0]!
      .Throttle!;
    const expected = methodThrottles(DEFAULT_RATE_LIMIT);
    expect(Object.keys(throttles).sort()).toEqual(expected.map((t) => `${t.path}/${t.method}`).sort());
    for (const t of expected) expect(throttles[`${t.path}/${t.method}`]).toEqual({ RateLimit: t.rateLimit, BurstLimit: t.burstLimit });
    // The heavy routes among them, each below the token's 100 a second.
    for (const heavy of [
      '/webhooks/{id}/recover/POST',
      '/webhooks/{id}/deliveries/GET',
      '/activities/GET',
      '/search/GET',
      '/projects/{slug}/duplicate/POST',
      '/projects-labels/{slug}/attach/POST',
    ])
      expect(throttles[heavy]?.RateLimit, heavy).toBeLessThan(100);
    // Every key names a method of the API.
    const methods = new Set(routes.map((r) => `${r.path}/${r.method}`));
    expect(Object.keys(throttles).filter((k) => !methods.has(k))).toEqual([]);
  });

  test('the authorizer is a TOKEN authorizer on the Authorization header, validated and cached', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: TOKEN_VALIDATION_REGEX,
      AuthorizerResultTtlInSeconds: 300,
    });
  });
});

describe('functions', () => {
  test('one function per route plus the authorizer, the stream processor, the inbound consumer and the webhook deliverer', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(routes.length + 4);
  });

  test('every function runs nodejs22.x on arm64 with active tracing and the table name, without Node mapping stacks at load', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        Environment: { Variables: { TABLE_NAME: expect.anything() } },
        LoggingConfig: { LogGroup: expect.anything() },
      });
      // Error lines map their own stacks (observability/stacks.ts); Node doing it costs every cold start.
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toBeUndefined();
    }
  });

  test("every function writes Lambda's JSON log format, with Powertools' service, level and debug sampling of its stage", () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      // Lambda admits every application line; Powertools' level (per stage, sampled) decides what is written.
      expect(fn.Properties.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON', SystemLogLevel: 'INFO', ApplicationLogLevel: 'DEBUG' });
      expect(fn.Properties.Environment.Variables, id).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'project-label-service-dev',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0',
      });
    }
  });

  test.each(routes.map((r) => r.name))('the %s function is named <service>-<route>, so its logs and metrics name the route', (name) => {
    const fn = resources[functionLogicalId(name)]!;
    expect(fn.Properties.FunctionName).toBe(`${fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME}-${name}`);
  });

  test('prod logs at INFO and samples 1% of invocations at DEBUG', () => {
    const prod = synthesize({ stage: 'prod', bundle: false, nag: false });
    const functions = Object.values(prod.template.toJSON().Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(functions).toHaveLength(routes.length + 4);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'project-label-service-prod',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0.01',
      });
    }
  });

  test('every function logs to its own log group with a retention', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const group = resources[ref(fn.Properties.LoggingConfig.LogGroup)!];
      expect(group?.Type, id).toBe('AWS::Logs::LogGroup');
      expect(group?.Properties.RetentionInDays, id).toBe(7);
    }
  });

  test.each(routes.filter((r) => r.method === 'GET' && r.access !== 'none').map((r) => r.name))(
    'GET route %s cannot write to the table, but for its workspace counts (an UpdateItem of LOAD#* alone)',
    (name) => {
      expect(routes.find((r) => r.name === name)!.access).toBe('read');
      expect(actionsOf(name)).toContain('dynamodb:Query');
      const writing = statementsOf(name).filter((s) => [s.Action].flat().some((a) => WRITE_ACTIONS.includes(a) || a === 'dynamodb:*'));
      expect(writing.map((s) => ({ actions: [s.Action].flat().sort(), condition: s.Condition }))).toEqual([
        {
          actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LOAD#*'] } },
        },
      ]);
    },
  );

  test.each(routes.filter((r) => r.access === 'none').map((r) => r.name))(
    'route %s, which never touches the table, may do nothing to it',
    (name) => {
      expect(routes.find((r) => r.name === name)!.method).toBe('GET');
      expect(actionsOf(name).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    },
  );

  test.each(routes.filter((r) => r.access === 'write').map((r) => r.name))('write route %s can write to the table', (name) => {
    expect(actionsOf(name)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
  });

  test('every route function gets CURSOR_KEY from the secret the stack generates, the authorizer does not', () => {
    const [secretId] = ofType('AWS::SecretsManager::Secret').find(([, r]) => r.Properties.GenerateSecretString)!;
    for (const route of routes) {
      const env = JSON.stringify(resources[functionLogicalId(route.name)]!.Properties.Environment.Variables.CURSOR_KEY);
      expect(env, route.name).toContain(secretId);
      expect(env).toContain('resolve:secretsmanager');
    }
    expect(resources[functionLogicalId('authorizer')]!.Properties.Environment.Variables.CURSOR_KEY).toBeUndefined();
  });

  test("every route function holds workspaces to nine tenths of a partition's units (WORKSPACE_RATE_LIMITS), the readable setting", () => {
    for (const route of routes) {
      const value = resources[functionLogicalId(route.name)]!.Properties.Environment.Variables.WORKSPACE_RATE_LIMITS;
      expect(value, route.name).toBe('rcu=2700,wcu=900');
      expect(readWorkspaceRateLimits(value)).toEqual({ read: 2_700, write: 900 });
    }
    expect(resources[functionLogicalId('authorizer')]!.Properties.Environment.Variables.WORKSPACE_RATE_LIMITS).toBeUndefined();
  });

  test('the authorizer may only GetItem token items', () => {
    const dynamo = statementsOf('authorizer').filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TOKEN#*'] } },
      },
    ]);
  });
});

describe('table', () => {
  test('keys and indexes are exactly those of functions/commons/store/table.ts (as the local table)', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const local = createTableInput('x');
    const byName = (a: { AttributeName?: string }, b: { AttributeName?: string }) => a.AttributeName!.localeCompare(b.AttributeName!);
    expect(table.Properties.KeySchema).toEqual(local.KeySchema);
    expect([...table.Properties.AttributeDefinitions].sort(byName)).toEqual([...local.AttributeDefinitions!].sort(byName));
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: local.StreamSpecification!.StreamViewType });
    expect(local.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  test('on demand, point-in-time recovery, encrypted; disposable in dev', () => {
    synth.template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: false,
      }),
      DeletionPolicy: 'Delete',
    });
  });
});

describe('stream backbone', () => {
  const mapping = () => ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);

  test("the processor reads the table's stream in bisected, bounded retries, with an SQS on-failure destination", () => {
    const [m, ...others] = mapping().filter((x) => ref(x.FunctionName) === functionLogicalId('stream-processor'));
    expect(others).toEqual([]);
    expect(ref(m!.FunctionName)).toBe(functionLogicalId('stream-processor'));
    expect(JSON.stringify(m!.EventSourceArn)).toContain('StreamArn');
    expect(m).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
    });
    const queue = m!.DestinationConfig.OnFailure.Destination;
    expect(resources[queue['Fn::GetAtt'][0]]!.Type).toBe('AWS::SQS::Queue');
  });

  test("only the records the processor acts on reach it (public items, task links going, states it counts, and a webhook's item while it shows failures or stops showing them)", () => {
    const patterns = mapping()
      .find((x) => ref(x.FunctionName) === functionLogicalId('stream-processor'))!
      .FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([
      {
        dynamodb: {
          NewImage: {
            type: { S: ['project', 'label', 'task_link', 'project_label', 'detach_note', 'project_deletion', 'label_deletion'] },
          },
        },
      },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['task_link'] } } } },
      { dynamodb: { NewImage: { type: { S: ['thing_state'] }, stats_by_stream: { BOOL: [true] } } } },
      { dynamodb: { NewImage: { type: { S: ['webhook'] }, failing_since: { S: [{ exists: true }] } } } },
      { dynamodb: { OldImage: { type: { S: ['webhook'] }, failing_since: { S: [{ exists: true }] } } } },
    ]);
  });

  test("the deployed filters let through exactly the records the local stream runner's rule does", () => {
    const patterns = mapping()
      .find((x) => ref(x.FunctionName) === functionLogicalId('stream-processor'))!
      .FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    // Lambda's event filtering, as far as these patterns go: a list is any of its values, {exists: true} a present key.
    const matches = (pattern: unknown, value: unknown): boolean => {
      if (Array.isArray(pattern))
        return pattern.some((p) =>
          typeof p === 'object' && p !== null && 'exists' in p ? (value !== undefined) === p.exists : p === value,
        );
      if (typeof pattern !== 'object' || pattern === null || typeof value !== 'object' || value === null) return false;
      return Object.entries(pattern).every(([k, p]) =>
        Array.isArray(p) && p.some((x) => typeof x === 'object' && x !== null && 'exists' in x)
          ? matches(p, (value as Record<string, unknown>)[k])
          : (value as Record<string, unknown>)[k] !== undefined && matches(p, (value as Record<string, unknown>)[k]),
      );
    };
    const image = (item: Record<string, string | boolean>) =>
      Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'boolean' ? { BOOL: v } : { S: v }]));
    const items: Record<string, string | boolean>[] = [
      { type: 'thing_state' },
      { type: 'thing_state', stats_by_stream: true },
      { type: 'thing_state', stats_by_stream: false },
      { type: 'project' },
      { type: 'label' },
      { type: 'task_link' },
      { type: 'counter' },
      { type: 'webhook' },
      { type: 'webhook', failing_since: '2026-01-01T00:00:00.000Z' },
      { type: 'webhook_delivery', failing_since: 'x' },
    ];
    for (const eventName of ['INSERT', 'MODIFY', 'REMOVE'] as const)
      for (const before of [undefined, ...items])
        for (const after of eventName === 'REMOVE' ? [undefined] : items) {
          if ((eventName === 'INSERT') !== (before === undefined) || (eventName === 'MODIFY' && before?.type !== after?.type)) continue;
          const record = {
            eventName,
            dynamodb: { ...(before ? { OldImage: image(before) } : {}), ...(after ? { NewImage: image(after) } : {}) },
          };
          const deployed = patterns.some((p: unknown) => matches(p, record));
          expect(deployed, JSON.stringify(record)).toBe(reachesProcessor(record as never));
        }
  });

  test('least privilege: read the stream, write the table, PutEvents on the service bus only', () => {
    const statements = statementsOf('stream-processor');
    const events = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('events:')));
    expect(events).toEqual([
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Bus/), 'Arn'] } },
    ]);
    const actions = actionsOf('stream-processor');
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']));
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:Query',
        'dynamodb:ConditionCheckItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ]),
    );
    expect(actions.filter((a) => a === '*' || a === 'dynamodb:*' || a === 'events:*' || a === 'dynamodb:Scan')).toEqual([]);
    const tableStatements = statements.filter((s) => [s.Action].flat().includes('dynamodb:PutItem'));
    expect(tableStatements.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] }]);
    const env = resources[functionLogicalId('stream-processor')]!.Properties.Environment.Variables;
    expect(ref(env.EVENT_BUS_NAME)).toMatch(/^Bus/);
    expect(env.CURSOR_KEY).toBeUndefined();
    // No route function may publish events: they come from the stream only.
    for (const route of routes)
      expect(
        actionsOf(route.name).filter((a) => a.startsWith('events:')),
        route.name,
      ).toEqual([]);
  });

  test('the failure queue is encrypted and TLS-only; alarms on its depth and on the iterator age', () => {
    synth.template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1_209_600 });
    // Every queue of the stack refuses plain HTTP.
    const queues = ofType('AWS::SQS::Queue').map(([id]) => id);
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    for (const id of queues) {
      const policy = policies.find((p) => p.Queues.some((q: unknown) => ref(q) === id));
      expect(JSON.stringify(policy), id).toContain('aws:SecureTransport');
    }
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && a.Threshold === 1).length).toBeGreaterThan(0);
    expect(alarms.some((a) => a.MetricName === 'IteratorAge' && a.Threshold === 60_000)).toBe(true);
  });

  test('an existing bus by context: no bus of its own, PutEvents on that bus', () => {
    const other = synthesize({ stage: 'dev', bundle: false, context: { eventBusName: 'company-bus' } });
    const res = other.template.toJSON().Resources as Record<string, Resource>;
    expect(Object.values(res).filter((r) => r.Type === 'AWS::Events::EventBus')).toEqual([]);
    expect(JSON.stringify(res)).toContain(':event-bus/company-bus');
  });
});

describe('inbound events', () => {
  test("a rule takes the product's task, member and sprint events (any source but ours) to the inbound queue", () => {
    const rules = ofType('AWS::Events::Rule').map(([, r]) => r.Properties);
    // This one, the webhook rule and the sweeper's schedule (describe 'webhooks').
    expect(rules.map((r) => queueName(r.Targets[0].Arn)).sort()).toEqual([
      'project-label-service-dev-inbound',
      'project-label-service-dev-webhook-deliveries',
      'project-label-service-dev-webhook-retries',
    ]);
    const rule = rules.find((r) => queueName(r.Targets[0].Arn) === 'project-label-service-dev-inbound')!;
    expect(rule.Targets).toHaveLength(1);
    expect(rule.EventPattern).toEqual({
      source: [{ 'anything-but': ['project-label-service'] }],
      'detail-type': [
        'Task Created',
        'Task Completed',
        'Task Reopened',
        'Task Deleted',
        'Member Added',
        'Member Removed',
        'Sprint Created',
        'Sprint Deleted',
      ],
    });
    expect(ref(rule.EventBusName)).toMatch(/^Bus/);
  });

  test('the queue dead-letters after 5 deliveries; the consumer reports partial batch failures, 10 at a time', () => {
    const [, queue] = ofType('AWS::SQS::Queue').find(([, q]) => q.Properties.QueueName === 'project-label-service-dev-inbound')!;
    expect(queue.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(queue.Properties.VisibilityTimeout).toBe(180);
    const dlq = resources[ref(queue.Properties.RedrivePolicy.deadLetterTargetArn)!]!;
    expect(dlq.Properties).toMatchObject({ QueueName: 'project-label-service-dev-inbound-dead-letters', SqsManagedSseEnabled: true });
    const mapping = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .find((m) => ref(m.FunctionName) === functionLogicalId('inbound-consumer'))!;
    expect(mapping).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  test('least privilege: table items, SendMessage to its dead-letter queue only, no events', () => {
    const actions = actionsOf('inbound-consumer');
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'sqs:SendMessage']),
    );
    expect(actions.filter((a) => a === '*' || a.endsWith(':*') || a === 'dynamodb:Scan' || a.startsWith('events:'))).toEqual([]);
    const send = statementsOf('inbound-consumer').filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
    expect(send.map((s) => ref(s.Resource))).toEqual([expect.stringMatching(/^InboundDeadLetters/)]);
    const env = resources[functionLogicalId('inbound-consumer')]!.Properties.Environment.Variables;
    expect(ref(env.DEAD_LETTER_QUEUE_URL)).toMatch(/^InboundDeadLetters/);
  });

  test('alarms on the dead-letter queue and on the age of the oldest waiting event', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    // Its dead-letter queue's, beside the stream failure queue's and the webhook dead-letter queue's.
    expect(
      alarms
        .filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')
        .map((a) => a.AlarmName)
        .sort(),
    ).toEqual([
      'project-label-service-dev-inbound-dead-letters',
      'project-label-service-dev-stream-failures',
      'project-label-service-dev-webhook-dead-letters',
    ]);
    expect(alarms.find((a) => a.AlarmName === 'project-label-service-dev-inbound-dead-letters')).toMatchObject({
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^InboundDeadLetters/), 'QueueName'] } }],
      Threshold: 1,
    });
    expect(alarms.some((a) => a.MetricName === 'ApproximateAgeOfOldestMessage' && a.Threshold === 300)).toBe(true);
  });
});

describe('the template', () => {
  test("each of a stage's templates, as written for CloudFormation, stays within its 1,000,000-byte limit", () => {
    for (const stage of ['dev', 'prod'] as const) {
      for (const { name, text } of synthesize({ stage, bundle: false }).templates)
        expect(Buffer.byteLength(text), `${stage} ${name}`).toBeLessThan(1_000_000);
    }
  });

  test('is the same with cdk-nag as without: its acknowledgments are checked at synthesis, not written in (they made it three times its size)', () => {
    const withNag = synthesize({ stage: 'prod', bundle: false });
    const template = withNag.template.toJSON() as { Resources: Record<string, Resource & { Metadata?: object }> };
    const carrying = Object.entries(template.Resources).filter(([, r]) => r.Metadata && 'cdk_nag' in r.Metadata);
    expect(carrying.map(([id]) => id)).toEqual([]);
    const without = synthesize({ stage: 'prod', bundle: false, nag: false });
    expect(withNag.templates.map((t) => t.name)).toEqual(without.templates.map((t) => t.name));
    withNag.templates.forEach((t, i) => expect(t.text === without.templates[i]!.text, t.name).toBe(true));
  });
});

describe('secrets at rest', () => {
  const secretsKeyId = (res: Record<string, Resource>, stage = 'dev') => {
    const alias = Object.values(res).find(
      (r) => r.Type === 'AWS::KMS::Alias' && r.Properties.AliasName === `alias/project-label-service-${stage}-secrets-at-rest`,
    );
    return ref(alias!.Properties.TargetKeyId)!;
  };

  test('a KMS key of the stack seals them, rotated yearly; prod keeps it on a destroy, dev does not', () => {
    const key = resources[secretsKeyId(resources)]!;
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect((key as Resource & { DeletionPolicy?: string }).DeletionPolicy).toBe('Delete');
    const prod = synthesize({ stage: 'prod', bundle: false, nag: false }).template.toJSON().Resources as Record<
      string,
      Resource & { DeletionPolicy?: string }
    >;
    expect(prod[secretsKeyId(prod, 'prod')]!.DeletionPolicy).toBe('RetainExceptOnCreate');
  });

  /** The five functions that use the key, by name: the two that seal (and open), the three that only open. */
  const users = new Map<string, 'seal' | 'open'>([
    ['create-webhook', 'seal'],
    ['rotate-webhook-secret', 'seal'],
    ['ping-webhook', 'open'],
    ['redeliver-webhook-delivery', 'open'],
    ['webhook-deliverer', 'open'],
  ]);

  test('the five are the routes the route table marks as using secrets, and the deliverer; docs/webhooks.md names exactly them', () => {
    expect(new Map([...routes.flatMap((r) => (r.secrets ? [[r.name, r.secrets] as const] : [])), ['webhook-deliverer', 'open']])).toEqual(
      users,
    );
    const docs = readFileSync(join(repoRoot, 'docs', 'webhooks.md'), 'utf8');
    const paragraph = /- \*\*Five roles may use it\*\*[\s\S]*?(?=\n- \*\*)/.exec(docs)![0];
    const named = [...paragraph.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!).filter((n) => n.includes('-'));
    expect(new Set(named)).toEqual(new Set(users.keys()));
  });

  test('-c legacySecrets=refuse: every unwrap must name its workspace too, in the roles and in the key policy (open, the default, lets v1 values unwrap without)', () => {
    const refusing = synthesize({ stage: 'dev', bundle: false, nag: false, context: { legacySecrets: 'refuse' } }).template.toJSON()
      .Resources as Record<string, Resource>;
    const decrypts = (res: Record<string, Resource>) =>
      [
        ...Object.values(res)
          .filter((r) => r.Type === 'AWS::IAM::Policy')
          .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, any>[]),
        ...(res[secretsKeyId(res)]!.Properties.KeyPolicy.Statement as Record<string, any>[]),
      ].filter((st) => [st.Action].flat().includes('kms:Decrypt'));
    const refused = decrypts(refusing);
    expect(refused).toHaveLength(2 * users.size);
    for (const st of refused) expect(st.Condition).toMatchObject(NAMES_A_WORKSPACE);
    const opened = decrypts(resources);
    expect(opened).toHaveLength(2 * users.size);
    for (const st of opened) expect(st.Condition.Null).toBeUndefined();
    expect(() => synthesize({ stage: 'dev', bundle: false, nag: false, context: { legacySecrets: 'no' } })).toThrow(
      /-c legacySecrets="no": use open or refuse/,
    );
  });
  test.each([...routes.map((r) => r.name), 'authorizer', 'stream-processor', 'inbound-consumer', 'webhook-deliverer'])(
    '%s may use the secrets key only if it seals or opens secrets (make data keys only if it seals), only for data keys of the service, and knows it by ARN only then',
    (name) => {
      const keyId = secretsKeyId(resources);
      const kms = statementsOf(name).filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')));
      const env = resources[functionLogicalId(name)]!.Properties.Environment.Variables;
      const use = users.get(name);
      if (!use) {
        expect(kms).toEqual([]);
        expect(env.WEBHOOK_SECRETS_KMS_KEY_ID).toBeUndefined();
        return;
      }
      expect(kms).toEqual(
        [
          ...(use === 'seal' ? [{ Action: 'kms:GenerateDataKey', Condition: { ...SERVICE_CONTEXT, ...NAMES_A_WORKSPACE } }] : []),
          { Action: 'kms:Decrypt', Condition: SERVICE_CONTEXT },
        ].map((s) => ({ Effect: 'Allow', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] }, ...s })),
      );
      expect(env.WEBHOOK_SECRETS_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    },
  );

  /** The service's encryption context, and no context key but its own and the workspace's. */
  const SERVICE_CONTEXT = {
    StringEquals: { 'kms:EncryptionContext:service': 'project-label-service', 'kms:EncryptionContext:purpose': 'secrets-at-rest' },
    'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['service', 'purpose', 'workspace'] },
  };
  /** A new data key names its workspace (the key's log then says whose secret each use was for). */
  const NAMES_A_WORKSPACE = { Null: { 'kms:EncryptionContext:workspace': 'false' } };

  test("the key's policy is explicit: the account administers it and may not use it; each function that seals or opens is named, by its role, for what it does and nothing more", () => {
    const policy = resources[secretsKeyId(resources)]!.Properties.KeyPolicy as { Statement: Record<string, any>[] };
    const root = { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } };
    const [admin, ...uses] = policy.Statement;
    expect(admin).toMatchObject({ Sid: 'KeyAdministratorsManageButDoNotUse', Effect: 'Allow', Principal: root, Resource: '*' });
    const adminActions = [admin!.Action].flat() as string[];
    for (const use of [
      'kms:Decrypt',
      'kms:Encrypt',
      'kms:GenerateDataKey',
      'kms:ReEncryptFrom',
      'kms:ReEncryptTo',
      'kms:CreateGrant',
      'kms:*',
    ])
      expect(
        adminActions.some((a) => a === use || (a.endsWith('*') && use.startsWith(a.slice(0, -1)))),
        use,
      ).toBe(false);
    expect(adminActions).toEqual(expect.arrayContaining(['kms:Put*', 'kms:ScheduleKeyDeletion', 'kms:Disable*']));
    // Every other statement names one role (by name: its room refers to the key) for one use; the users are exactly those of the table above.
    const byRole = new Map<string, string[]>();
    for (const u of uses) {
      expect(u.Principal).toEqual(root);
      const role = JSON.stringify(u.Condition.ArnEquals['aws:PrincipalArn']);
      const name = /role\/project-label-service-dev-([a-z-]+)/.exec(role)![1]!;
      const { ArnEquals: _role, ...rest } = u.Condition;
      expect(rest).toEqual(u.Action === 'kms:GenerateDataKey' ? { ...SERVICE_CONTEXT, ...NAMES_A_WORKSPACE } : SERVICE_CONTEXT);
      byRole.set(name, [...(byRole.get(name) ?? []), u.Action]);
    }
    expect(Object.fromEntries([...byRole].map(([n, a]) => [n, a.sort()]))).toEqual(
      Object.fromEntries([...users].map(([n, use]) => [n, use === 'seal' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt']])),
    );
    // And each of those roles is the function's own, by that name.
    for (const name of users.keys()) {
      const role = resources[ref(resources[functionLogicalId(name)]!.Properties.Role)!]!;
      expect(role.Properties.RoleName, name).toBe(`project-label-service-dev-${name}`);
    }
  });
});

describe('webhooks', () => {
  test('no alarm is built on a SEARCH expression (CloudWatch refuses them in alarms)', () => {
    for (const [id, alarm] of ofType('AWS::CloudWatch::Alarm'))
      expect(JSON.stringify(alarm.Properties.Metrics ?? []), id).not.toContain('SEARCH(');
  });

  const QUEUE = 'project-label-service-dev-webhook-deliveries';
  const RETRIES = 'project-label-service-dev-webhook-retries';
  const DEAD_LETTERS = 'project-label-service-dev-webhook-dead-letters';
  const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });
  const alarmNamed = (name: string) => {
    const found = ofType('AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === `project-label-service-dev-${name}`);
    if (!found) throw new Error(`no alarm ${name}`);
    return found[1].Properties;
  };

  test("a rule takes the service's own events, every outbound type and nothing else, to the deliveries queue", () => {
    const rules = ofType('AWS::Events::Rule').filter(([, r]) =>
      r.Properties.Targets.some((t: { Arn: unknown }) => ref(t.Arn) === queueId(QUEUE)),
    );
    expect(rules).toHaveLength(1);
    const [[ruleId, rule]] = rules as [[string, Resource]];
    expect(EVENT_SOURCE).toBe('project-label-service');
    const [tableId] = ofType('AWS::DynamoDB::Table')[0]!;
    // This stage's events only: they name its table (deploy-day.test.ts: stages on a shared bus).
    expect(rule.Properties.EventPattern).toEqual({
      source: [EVENT_SOURCE],
      'detail-type': [...OUTBOUND_TYPES],
      resources: [getAtt(tableId)],
    });
    expect(ref(rule.Properties.EventBusName)).toMatch(/^Bus/);
    expect(rule.Properties.State).toBe('ENABLED');
    // What EventBridge cannot hand to the queue after its retries goes to the dead-letter queue.
    expect(rule.Properties.Targets).toEqual([
      { Arn: getAtt(queueId(QUEUE)), Id: expect.any(String), DeadLetterConfig: { Arn: getAtt(queueId(DEAD_LETTERS)) } },
    ]);
    // The queue lets EventBridge send to it for this rule only.
    const [, policy] = ofType('AWS::SQS::QueuePolicy').find(([, p]) =>
      p.Properties.Queues.some((q: unknown) => ref(q) === queueId(QUEUE)),
    )!;
    const fromEvents = policy.Properties.PolicyDocument.Statement.filter(
      (s: { Principal?: { Service?: string } }) => s.Principal?.Service === 'events.amazonaws.com',
    );
    expect(fromEvents).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: expect.arrayContaining(['sqs:SendMessage']),
        Resource: getAtt(queueId(QUEUE)),
        Condition: { ArnEquals: { 'aws:SourceArn': getAtt(ruleId) } },
      }),
    ]);
  });

  test('a schedule puts a sweep on the retry lane every 5 minutes (webhooks/sweeper.ts), from the default bus, for this rule only', () => {
    const rules = ofType('AWS::Events::Rule').filter(([, r]) =>
      r.Properties.Targets.some((t: { Arn: unknown }) => ref(t.Arn) === queueId(RETRIES)),
    );
    expect(rules).toHaveLength(1);
    const [[ruleId, rule]] = rules as [[string, Resource]];
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
    // A schedule runs on the account's default bus, never the service's.
    expect(rule.Properties.EventBusName).toBeUndefined();
    expect(rule.Properties.Targets).toEqual([
      {
        Arn: getAtt(queueId(RETRIES)),
        Id: expect.any(String),
        Input: JSON.stringify({ kind: 'sweep' }),
        DeadLetterConfig: { Arn: getAtt(queueId(DEAD_LETTERS)) },
      },
    ]);
    const [, policy] = ofType('AWS::SQS::QueuePolicy').find(([, p]) =>
      p.Properties.Queues.some((q: unknown) => ref(q) === queueId(RETRIES)),
    )!;
    expect(
      policy.Properties.PolicyDocument.Statement.filter(
        (s: { Principal?: { Service?: string } }) => s.Principal?.Service === 'events.amazonaws.com',
      ),
    ).toEqual([
      expect.objectContaining({ Resource: getAtt(queueId(RETRIES)), Condition: { ArnEquals: { 'aws:SourceArn': getAtt(ruleId) } } }),
    ]);
  });

  test('the deliveries and retry queues are encrypted and TLS-only, visible again after 180 s, and dead-letter after 5 receives', () => {
    for (const name of [QUEUE, RETRIES]) {
      const queue = resources[queueId(name)]!;
      expect(queue.Properties, name).toMatchObject({
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 180,
        MessageRetentionPeriod: 345_600,
        RedrivePolicy: { deadLetterTargetArn: getAtt(queueId(DEAD_LETTERS)), maxReceiveCount: 5 },
      });
      // Six times the deliverer's timeout, so a batch being delivered is not handed out again.
      expect(queue.Properties.VisibilityTimeout).toBe(6 * resources[functionLogicalId('webhook-deliverer')]!.Properties.Timeout);
    }
    expect(resources[queueId(DEAD_LETTERS)]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1_209_600 });
    expect(resources[queueId(DEAD_LETTERS)]!.Properties.RedrivePolicy).toBeUndefined();
    for (const id of [queueId(QUEUE), queueId(RETRIES), queueId(DEAD_LETTERS)]) {
      const [, policy] = ofType('AWS::SQS::QueuePolicy').find(([, p]) => p.Properties.Queues.some((q: unknown) => ref(q) === id))!;
      expect(policy.Properties.PolicyDocument.Statement, id).toContainEqual({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:*',
        Resource: getAtt(id),
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
    }
  });

  test('the deliverer reads both lanes 10 messages at a time, each with a concurrency cap of its own, and reports partial batch failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    const deliverer = mappings.filter((m) => ref(m.FunctionName) === functionLogicalId('webhook-deliverer'));
    expect(deliverer).toHaveLength(2);
    const lane = (name: string) => deliverer.find((m) => ref(m.EventSourceArn) === queueId(name));
    const common = { BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] };
    // Fresh events to healthy endpoints never wait behind retries: the retry lane has the smaller share.
    expect(lane(QUEUE)).toMatchObject({ ...common, EventSourceArn: getAtt(queueId(QUEUE)), ScalingConfig: { MaximumConcurrency: 50 } });
    expect(lane(RETRIES)).toMatchObject({ ...common, EventSourceArn: getAtt(queueId(RETRIES)), ScalingConfig: { MaximumConcurrency: 10 } });
    // Nothing else consumes the webhook queues, and nothing consumes the dead letters.
    for (const id of [queueId(QUEUE), queueId(RETRIES), queueId(DEAD_LETTERS)])
      expect(
        mappings.filter((m) => ref(m.EventSourceArn) === id),
        id,
      ).toHaveLength(id === queueId(DEAD_LETTERS) ? 0 : 1);
  });

  test('the deliverer is <service>-webhook-deliverer on nodejs22.x, and its environment names the queues it sends to', () => {
    const fn = resources[functionLogicalId('webhook-deliverer')]!.Properties;
    expect(fn).toMatchObject({
      FunctionName: 'project-label-service-dev-webhook-deliverer',
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 30,
    });
    expect(fn.Environment.Variables).toMatchObject({
      WEBHOOK_RETRY_QUEUE_URL: { Ref: queueId(RETRIES) },
      WEBHOOK_DEAD_LETTER_QUEUE_URL: { Ref: queueId(DEAD_LETTERS) },
    });
    // Neither a route (no cursors) nor a publisher (no bus).
    expect(fn.Environment.Variables.CURSOR_KEY).toBeUndefined();
    expect(fn.Environment.Variables.WEBHOOK_QUEUE_URL).toBeUndefined();
    expect(fn.Environment.Variables.EVENT_BUS_NAME).toBeUndefined();
  });

  test('least privilege: GetItem, Query, PutItem, UpdateItem on its collections of the table only; send to the retry and dead-letter queues; unwrap data keys; no events', () => {
    const statements = statementsOf('webhook-deliverer');
    const dynamo = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    // One statement on the table's ARN alone (no Scan, no DeleteItem or batch writes), and Query of the due index alone.
    expect(dynamo).toEqual([
      {
        Effect: 'Allow',
        Action: expect.any(Array),
        Resource: getAtt(expect.stringMatching(/^Table/)),
        // Only items whose partition is a workspace's webhooks or a webhook's deliveries and health.
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['HOOKS#*', 'WEBHOOK#*'] } },
      },
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [getAtt(expect.stringMatching(/^Table/)), '/index/GSI3']] },
        // The due index's own partitions.
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['DUE#*'] } },
      },
    ]);
    expect([...[dynamo[0]!.Action].flat()].sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const send = statements.filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
    expect(send).toHaveLength(1);
    // Not the fresh lane: only the bus rule puts messages there.
    expect(([send[0]!.Resource].flat() as unknown[]).map(ref).sort()).toEqual([queueId(RETRIES), queueId(DEAD_LETTERS)].sort());
    // What the event source mappings need, on the two lanes only.
    const receive = statements.filter((s) => [s.Action].flat().includes('sqs:ReceiveMessage'));
    expect(receive.flatMap((s) => ([s.Resource].flat() as unknown[]).map(ref)).sort()).toEqual([queueId(QUEUE), queueId(RETRIES)].sort());
    expect([...new Set(actionsOf('webhook-deliverer'))].sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      // The secrets key, to open them only (its statement: 'secrets at rest' above).
      'kms:Decrypt',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });

  test('no route function may use a queue but the recovery, which may only send to the retry lane; the deliverer sends to the rest', () => {
    for (const route of routes.filter((r) => r.name !== 'recover-webhook'))
      expect(
        actionsOf(route.name).filter((a) => a.startsWith('sqs:')),
        route.name,
      ).toEqual([]);
    const webhookQueues = [queueId(QUEUE), queueId(RETRIES), queueId(DEAD_LETTERS)];
    const sendersTo = (queues: string[]) =>
      ofType('AWS::IAM::Policy')
        .filter(([, p]) =>
          (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).some(
            (s) => [s.Action].flat().includes('sqs:SendMessage') && [s.Resource].flat().some((r) => queues.includes(ref(r)!)),
          ),
        )
        .flatMap(([, p]) => (p.Properties.Roles as unknown[]).map(ref))
        .sort();
    const deliverer = ref(resources[functionLogicalId('webhook-deliverer')]!.Properties.Role);
    const recovery = ref(resources[functionLogicalId('recover-webhook')]!.Properties.Role);
    expect(sendersTo([queueId(QUEUE), queueId(DEAD_LETTERS)])).toEqual([deliverer]);
    expect(sendersTo([queueId(RETRIES)])).toEqual([deliverer, recovery].sort());
    expect(sendersTo(webhookQueues)).toEqual([deliverer, recovery].sort());
    expect(actionsOf('recover-webhook').filter((a) => a.startsWith('sqs:'))).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(
      actionsOf('recover-webhook').filter((a) => a.startsWith('sqs:') && !/^sqs:(SendMessage|GetQueueAttributes|GetQueueUrl)$/.test(a)),
    ).toEqual([]);
  });

  test('alarms: a dead letter, a message waiting 30 minutes, over half the attempts failing for 15 minutes, the deliverer throwing', () => {
    expect(alarmNamed('webhook-dead-letters')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(queueId(DEAD_LETTERS), 'QueueName') }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
    const age = alarmNamed('webhook-age');
    expect(age).toMatchObject({ Threshold: 1800, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
    // The older of the two lanes' oldest messages.
    type AgeQuery = {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Dimensions: unknown[] }; Stat: string; Period: number };
    };
    const ages = age.Metrics as AgeQuery[];
    expect(ages.find((m) => m.Expression)?.Expression).toBe('MAX([fresh, retries])');
    for (const [id, name] of [
      ['fresh', QUEUE],
      ['retries', RETRIES],
    ] as const)
      expect(ages.find((m) => m.Id === id)?.MetricStat, id).toEqual({
        Metric: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: getAtt(queueId(name), 'QueueName') }],
        },
        Stat: 'Maximum',
        Period: 300,
      });
    const rate = alarmNamed('webhook-failure-rate');
    expect(rate).toMatchObject({ Threshold: 50, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 3 });
    type Query = { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string } } };
    const metrics = rate.Metrics as Query[];
    expect(metrics.filter((m) => m.ReturnData !== false)).toEqual([
      expect.objectContaining({ Expression: 'IF(attempts >= 20, 100 * failed / attempts, 0)' }),
    ]);
    // The service's EMF counts, for this stage's service (as a metric or a search expression).
    const read = (id: string) => {
      const m = metrics.find((x) => x.Id === id)!;
      expect(m.ReturnData, id).toBe(false);
      expect(JSON.stringify(m), id).toContain('project-label-service-dev');
      return m.MetricStat?.Metric.MetricName ?? /MetricName="(\w+)"/.exec(m.Expression ?? '')?.[1];
    };
    expect(metrics).toHaveLength(3);
    expect(read('attempts')).toBe('WebhookAttempts');
    expect(read('failed')).toBe('WebhookAttemptsFailed');
    expect(alarmNamed('webhook-deliverer-errors')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId('webhook-deliverer') } }],
      Threshold: 1,
    });
  });
});

describe('API', () => {
  test('the stage is throttled, traced and writes JSON access logs', () => {
    const [, stage] = ofType('AWS::ApiGateway::Stage')[0]!;
    expect(stage.Properties).toMatchObject({
      StageName: 'dev',
      TracingEnabled: true,
      MethodSettings: [expect.objectContaining({ ThrottlingRateLimit: expect.any(Number), ThrottlingBurstLimit: expect.any(Number) })],
      AccessLogSetting: { DestinationArn: expect.anything(), Format: expect.stringContaining('"requestId":"$context.requestId"') },
    });
    expect(() => JSON.parse(stage.Properties.AccessLogSetting.Format)).not.toThrow();
  });

  test('CORS preflight allows the headers clients send: Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Correlation-Id', () => {
    const preflight = methodFor('OPTIONS', '/projects')!;
    const headers = preflight.Properties.Integration.IntegrationResponses[0].ResponseParameters;
    expect(headers['method.response.header.Access-Control-Allow-Headers']).toBe(
      "'Authorization,Content-Type,Idempotency-Key,If-Match,If-None-Match,X-Correlation-Id'",
    );
  });

  const gatewayResponse = (type: string) =>
    ofType('AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties.ResponseType === type)?.[1];

  test.each([
    ['UNAUTHORIZED', '401', 'unauthorized', 'TOKEN_INVALID', { 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" }],
    // The authorizer's Deny: an unknown, revoked or expired token (issue 68), a 401 saying which.
    ['ACCESS_DENIED', '401', 'unauthorized', 'TOKEN_INVALID', { 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" }],
    ['THROTTLED', '429', 'rate_limited', 'RATE_LIMIT_EXCEEDED', { 'gatewayresponse.header.Retry-After': "'1'" }],
    // The authorizer failing (a throttled token read): DynamoDB busy, a retry may succeed.
    ['AUTHORIZER_FAILURE', '503', 'service_unavailable', 'SERVICE_UNAVAILABLE', { 'gatewayresponse.header.Retry-After': "'1'" }],
    ['AUTHORIZER_CONFIGURATION_ERROR', '500', 'authorizer_error', 'AUTHORIZER_ERROR', {}],
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'not_found', 'NOT_FOUND', {}],
    ['DEFAULT_4XX', '400', 'bad_request', 'BAD_REQUEST', {}],
    ['DEFAULT_5XX', '500', 'internal_error', 'INTERNAL_ERROR', {}],
  ])('gateway response %s answers %s problem+json (%s, %s)', (type, status, code, errorCode, headers) => {
    const response = gatewayResponse(type);
    expect(response, type).toBeDefined();
    expect(response!.Properties.StatusCode).toBe(status);
    expect(response!.Properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Content-Type': "'application/problem+json'",
      'gatewayresponse.header.Cache-Control': "'no-store'",
      'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      ...headers,
    });
    const body = JSON.parse(response!.Properties.ResponseTemplates['application/json']);
    expect(body).toEqual({
      type: `https://project-label-service.dev/problems/${code}`,
      title: expect.any(String),
      status: Number(status),
      detail: expect.any(String),
      message: body.detail,
      code,
      error_code: errorCode,
      request_id: '$context.requestId',
    });
  });
});

describe('what a caller is told (issue 68)', () => {
  const template = (type: string) =>
    JSON.parse(
      ofType('AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties.ResponseType === type)![1].Properties.ResponseTemplates[
        'application/json'
      ],
    );

  test("a refused token's 401 is the sentence of the authorizer's Deny; a header API Gateway refuses itself names the three causes, and how to make a token", () => {
    expect(template('ACCESS_DENIED')).toMatchObject({ detail: `$context.authorizer.${REFUSAL_CONTEXT_KEY}`, status: 401 });
    const unauthorized = template('UNAUTHORIZED');
    expect(unauthorized.detail).toBe(GATEWAY_UNAUTHORIZED_DETAIL);
    expect(unauthorized.detail).toMatch(
      /sent none, another scheme, or a token not in that form\. To make one: npm run token -- create --workspace/,
    );
    // Substituted unescaped into the JSON body: the authorizer's sentences hold no quote or backslash.
    for (const refusal of ['unknown', 'expired'] as const) expect(refusalDetail(refusal, new Date().toISOString())).not.toMatch(/["\\]/);
  });

  test('every path a route serves answers the methods it does not take 405 with Allow, from a mock no authorizer or key guards', () => {
    const paths = resourcePaths();
    const mocks = ofType('AWS::ApiGateway::Method').filter(([, r]) => r.Properties.HttpMethod === 'ANY');
    const mockPath = (r: Resource) => paths.get(ref(r.Properties.ResourceId)!) ?? '/';
    expect(mocks.map(([, r]) => mockPath(r)).sort()).toEqual([...new Set(routes.map((r) => r.path))].sort());
    for (const [, m] of mocks) {
      const path = mockPath(m);
      expect(m.Properties).toMatchObject({ AuthorizationType: 'NONE', ApiKeyRequired: false });
      expect(m.Properties.Integration).toMatchObject({ Type: 'MOCK', PassthroughBehavior: 'NEVER' });
      const [answer] = m.Properties.Integration.IntegrationResponses;
      expect(answer.StatusCode, path).toBe('405');
      expect(answer.ResponseParameters, path).toMatchObject({
        'method.response.header.Allow': `'${allowedMethods(path).join(', ')}'`,
        'method.response.header.Content-Type': "'application/problem+json'",
        'method.response.header.Cache-Control': "'no-store'",
      });
      expect(JSON.parse(answer.ResponseTemplates['application/json'])).toMatchObject({
        status: 405,
        code: 'method_not_allowed',
        error_code: 'METHOD_NOT_ALLOWED',
        detail: expect.stringMatching(/^\$context\.httpMethod is not a method of \$context\.resourcePath: it takes [A-Z, ]+OPTIONS /),
        request_id: '$context.requestId',
      });
    }
    expect(allowedMethods('/projects/{slug}')).toEqual(['GET', 'PUT', 'DELETE', 'OPTIONS']);
  });
});

describe('operations', () => {
  test("alarms on API 5xx, on every function's errors and on table throttling", () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms.some((a) => a.MetricName === '5XXError' && a.Namespace === 'AWS/ApiGateway')).toBe(true);
    const errorAlarms = alarms.filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda');
    // The authorizer's counts its failures, not Lambda's errors, which include its refusals (deploy-day.test.ts).
    expect(errorAlarms).toHaveLength(routes.length + 3);
    expect(alarms.some((a) => JSON.stringify(a.Metrics ?? []).includes('ThrottleEvents'))).toBe(true);
  });

  test('outputs the API URL, the table name, the event bus, and the API id and stage the token CLI needs', () => {
    synth.template.hasOutput('ApiUrl', {});
    synth.template.hasOutput('TableName', {});
    synth.template.hasOutput('EventBusName', {});
    synth.template.hasOutput('RestApiId', {});
    synth.template.hasOutput('StageName', {});
  });
});
