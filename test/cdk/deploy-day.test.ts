import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ACCOUNT_STACK_NAME } from '#cdk/account-stack';
import { functionId } from '#cdk/parts';
import { STAGES, type StageName } from '#cdk/stage';
import { repoRoot } from '#lib/paths';
import { synthesize, type Synthesized } from './synth.ts';

/**
 * What AWS does at deploy and run time that synth, cfn-lint and cdk-nag do not check: alarms that reach
 * someone, webhook retries Lambda lets run, refusals that are not failures, a first prod deploy that can
 * be retried, the account-wide setting out of the stages, and the smaller ones. Both stages.
 */

// A synthesized template is untyped JSON; the assertions below walk it freely.
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
type Statement = { Sid?: string; Effect: string; Principal?: any; Action: string | string[]; Resource?: unknown; Condition?: any };

const STAGE_NAMES = ['dev', 'prod'] as const;
const synths = {} as Record<StageName, Synthesized>;
beforeAll(() => {
  for (const stage of STAGE_NAMES) synths[stage] = synthesize({ stage, bundle: false, nag: false });
});

const resourcesOf = (stage: StageName) => synths[stage].template.toJSON().Resources as Record<string, Resource>;
const ofType = (stage: StageName, type: string) => Object.entries(resourcesOf(stage)).filter(([, r]) => r.Type === type);
const ref = (value: unknown) => (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0];
const actions = (s: Statement) => [s.Action].flat();

function functionLogicalId(stage: StageName, name: string): string {
  const id = ofType(stage, 'AWS::Lambda::Function').find(([id]) => new RegExp(`^${functionId(name)}[0-9A-F]{8}$`).test(id))?.[0];
  if (!id) throw new Error(`no function ${name}`);
  return id;
}
const alarmNamed = (stage: StageName, name: string) =>
  ofType(stage, 'AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === `${STAGES[stage].prefix}-${name}`)?.[1];

describe.each(STAGE_NAMES)('%s', (stage) => {
  const prefix = STAGES[stage].prefix;

  describe('alarms reach someone', () => {
    const topic = () => ofType(stage, 'AWS::SNS::Topic').find(([, t]) => t.Properties.TopicName === `${prefix}-alarms`)!;

    test("the alarm topic is encrypted with the stack's own key, which CloudWatch may use (not alias/aws/sns)", () => {
      const [, alarmTopic] = topic();
      const keyId = ref(alarmTopic.Properties.KmsMasterKeyId);
      expect(JSON.stringify(alarmTopic.Properties.KmsMasterKeyId)).not.toContain('alias/aws/sns');
      const key = resourcesOf(stage)[keyId!]!;
      expect(key.Type).toBe('AWS::KMS::Key');
      expect(key.Properties.EnableKeyRotation).toBe(true);
      const statements = key.Properties.KeyPolicy.Statement as Statement[];
      const forCloudWatch = statements.filter((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');
      expect(forCloudWatch).toHaveLength(1);
      expect(forCloudWatch[0]).toMatchObject({ Effect: 'Allow', Resource: '*' });
      expect(actions(forCloudWatch[0]!).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    });

    test("the topic's policy lets CloudWatch alarms of this account publish, beside the TLS-only Deny", () => {
      const [topicId] = topic();
      const policies = ofType(stage, 'AWS::SNS::TopicPolicy').filter(([, p]) =>
        p.Properties.Topics.some((t: unknown) => ref(t) === topicId),
      );
      expect(policies).toHaveLength(1);
      const statements = policies[0]![1].Properties.PolicyDocument.Statement as Statement[];
      const allow = statements.filter((s) => s.Effect === 'Allow');
      expect(allow).toEqual([
        expect.objectContaining({
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Resource: { Ref: topicId },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: { 'aws:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) },
          },
        }),
      ]);
      expect(JSON.stringify(allow[0]!.Condition.ArnLike)).toContain(':cloudwatch:');
      expect(JSON.stringify(allow[0]!.Condition.ArnLike)).toContain(':alarm:*');
      const deny = statements.filter((s) => s.Effect === 'Deny');
      expect(deny).toHaveLength(1);
      expect(deny[0]!.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    });

    test('every alarm notifies that topic', () => {
      const [topicId] = topic();
      for (const [, alarm] of ofType(stage, 'AWS::CloudWatch::Alarm'))
        expect(alarm.Properties.AlarmActions, alarm.Properties.AlarmName).toEqual([{ Ref: topicId }]);
    });
  });

  describe('webhook retries survive', () => {
    test("the deliverer may loop through its retry queue (Lambda's recursive-loop detection would stop it after about 16 hops)", () => {
      const deliverer = resourcesOf(stage)[functionLogicalId(stage, 'webhook-deliverer')]!;
      expect(deliverer.Properties.RecursiveLoop).toBe('Allow');
    });

    test('every other function keeps the detection on', () => {
      const others = ofType(stage, 'AWS::Lambda::Function').filter(([id]) => id !== functionLogicalId(stage, 'webhook-deliverer'));
      expect(others.length).toBeGreaterThan(20);
      for (const [id, fn] of others) expect(fn.Properties.RecursiveLoop, id).toBe('Terminate');
    });
  });

  describe('alarms on what is ours', () => {
    test("the authorizer's alarm counts its failures to check a token, never its refusals of bad ones", () => {
      const alarm = alarmNamed(stage, 'authorizer-errors')!;
      expect(alarm.Properties).toMatchObject({
        Namespace: 'ProjectLabelService',
        MetricName: 'AuthorizerFailures',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
      });
      expect(alarm.Properties.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'service', Value: prefix },
          { Name: 'route', Value: 'authorizer' },
        ]),
      );
    });

    test("no alarm watches the authorizer's plain error count; its timeouts and crashes show as the API's 5xx", () => {
      const authorizer = functionLogicalId(stage, 'authorizer');
      const plain = ofType(stage, 'AWS::CloudWatch::Alarm').filter(
        ([, a]) =>
          a.Properties.MetricName === 'Errors' && a.Properties.Dimensions?.some((d: { Value: unknown }) => ref(d.Value) === authorizer),
      );
      expect(plain).toEqual([]);
      expect(alarmNamed(stage, 'api-5xx')!.Properties).toMatchObject({ MetricName: '5XXError', Namespace: 'AWS/ApiGateway' });
    });
  });

  describe('a failed first deploy can be retried', () => {
    const KEPT = ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::SecretsManager::Secret'];

    test(
      stage === 'prod'
        ? 'the table, every log group and the cursor key are kept on update and delete, but not when their create rolls back'
        : 'the table, every log group and the cursor key go with the stack',
      () => {
        const kept = Object.entries(resourcesOf(stage)).filter(([, r]) => KEPT.includes(r.Type));
        expect(kept.map(([, r]) => r.Type).sort()).toEqual(
          [...KEPT.slice(0, 1), ...Array(ofType(stage, 'AWS::Lambda::Function').length + 1).fill(KEPT[1]), KEPT[2]].sort(),
        );
        for (const [id, r] of kept) {
          expect(r.DeletionPolicy, id).toBe(stage === 'prod' ? 'RetainExceptOnCreate' : 'Delete');
          expect(r.UpdateReplacePolicy, id).toBe(stage === 'prod' ? 'Retain' : 'Delete');
        }
      },
    );

    test('nothing in the stage is retained after a rolled-back create', () => {
      const retained = Object.entries(resourcesOf(stage)).filter(([, r]) => r.DeletionPolicy === 'Retain');
      expect(retained.map(([id]) => id)).toEqual([]);
    });
  });

  describe('the account-wide setting is not a stage’s', () => {
    test('the stage sets no API Gateway account and makes no CloudWatch role for API Gateway, yet logs its stage', () => {
      expect(ofType(stage, 'AWS::ApiGateway::Account')).toEqual([]);
      const apiGatewayRoles = ofType(stage, 'AWS::IAM::Role').filter(([, r]) =>
        JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'),
      );
      expect(apiGatewayRoles).toEqual([]);
      const [[, apiStage]] = ofType(stage, 'AWS::ApiGateway::Stage') as [[string, Resource]];
      expect(apiStage.Properties.AccessLogSetting).toBeDefined();
      expect(apiStage.Properties.MethodSettings).toEqual([expect.objectContaining({ LoggingLevel: 'ERROR' })]);
    });
  });

  describe('the smaller ones', () => {
    const queueId = (name: string) => ofType(stage, 'AWS::SQS::Queue').find(([, q]) => q.Properties.QueueName === name)![0];
    const ruleTo = (queue: string) =>
      ofType(stage, 'AWS::Events::Rule').find(([, r]) =>
        r.Properties.Targets.some((t: { Arn: unknown }) => ref(t.Arn) === queueId(queue)),
      )!;

    test("the inbound rule's target has a dead-letter queue, which lets EventBridge send to it for that rule", () => {
      const [ruleId, rule] = ruleTo(`${prefix}-inbound`);
      const deadLetters = queueId(`${prefix}-inbound-dead-letters`);
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters, 'Arn'] } } }),
      ]);
      const policy = ofType(stage, 'AWS::SQS::QueuePolicy').find(([, p]) =>
        p.Properties.Queues.some((q: unknown) => ref(q) === deadLetters),
      );
      const fromRule = (policy?.[1].Properties.PolicyDocument.Statement as Statement[]).filter(
        (s) => s.Principal?.Service === 'events.amazonaws.com' && JSON.stringify(s.Condition).includes(ruleId),
      );
      expect(fromRule).toHaveLength(1);
      expect(fromRule[0]!.Effect).toBe('Allow');
      expect(actions(fromRule[0]!)).toContain('sqs:SendMessage');
    });

    test("each event names the stage's table as its resource, and the webhook rule takes only those", () => {
      const [tableId] = ofType(stage, 'AWS::DynamoDB::Table')[0]!;
      const processor = resourcesOf(stage)[functionLogicalId(stage, 'stream-processor')]!;
      expect(processor.Properties.Environment.Variables.EVENT_RESOURCES).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
      const [, rule] = ruleTo(`${prefix}-webhook-deliveries`);
      expect(rule.Properties.EventPattern.resources).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
    });
  });
});

describe('stages on one shared bus (-c eventBusName)', () => {
  test("each stage's webhook rule on the shared bus takes its own table's events only", () => {
    const shared = Object.fromEntries(
      STAGE_NAMES.map((stage) => [stage, synthesize({ stage, bundle: false, nag: false, context: { eventBusName: 'product-bus' } })]),
    ) as Record<StageName, Synthesized>;
    const patterns = STAGE_NAMES.map((stage) => {
      const resources = shared[stage].template.toJSON().Resources as Record<string, Resource>;
      const [, rule] = Object.entries(resources).find(
        ([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.EventPattern.source?.[0] === 'project-label-service',
      )!;
      expect(rule.Properties.EventBusName).toBe('product-bus');
      const [tableId, table] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::DynamoDB::Table')!;
      expect(rule.Properties.EventPattern.resources).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
      return table.Properties.TableName as string;
    });
    expect(new Set(patterns).size).toBe(2);
  });
});

describe('the account stack', () => {
  const account = () => synths.dev.account;

  test("holds API Gateway's CloudWatch role and the account setting, both retained when it is destroyed", () => {
    const resources = account().template.toJSON().Resources as Record<string, Resource>;
    expect(
      Object.values(resources)
        .map((r) => r.Type)
        .sort(),
    ).toEqual(['AWS::ApiGateway::Account', 'AWS::IAM::Role']);
    const [[roleId, role]] = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::IAM::Role') as [[string, Resource]];
    const [[, setting]] = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Account') as [[string, Resource]];
    expect(setting.Properties.CloudWatchRoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain('AmazonAPIGatewayPushToCloudWatchLogs');
    for (const r of [role, setting]) expect(r.DeletionPolicy).toBe('Retain');
  });

  test('is the same whichever stage the app is synthesized for', () => {
    expect(synths.prod.account.templateText).toBe(synths.dev.account.templateText);
  });
});

describe('npm scripts', () => {
  const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  /** The stacks a `cdk deploy` stack pattern selects (the CLI's glob: `*` is any run of characters). */
  const selects = (pattern: string, stackName: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(stackName);

  /** What the preflight (bin/preflight.ts) runs once AWS credentials and a Region are found: the rest of the script. */
  const PREFLIGHT = 'node --import tsx bin/preflight.ts ';
  const afterPreflight = (script: string) => (script.startsWith(PREFLIGHT) ? script.slice(PREFLIGHT.length) : undefined);

  test("bootstrap runs CDK's bootstrap and deploys the account stack, once per account and Region, once the preflight passes", () => {
    expect(afterPreflight(scripts.bootstrap!)).toBe(`cdk bootstrap && cdk deploy ${ACCOUNT_STACK_NAME} --require-approval never`);
  });

  test("deploy deploys the stage's stack alone, once the preflight passes: no bootstrap (a deployer that may only assume CDK's roles can run it), no account stack", () => {
    expect(scripts.deploy).not.toContain('bootstrap');
    const pattern = /^cdk deploy '([^']+)' --require-approval never$/.exec(afterPreflight(scripts.deploy!) ?? '')?.[1];
    expect(pattern).toBeDefined();
    for (const stage of STAGE_NAMES) expect(selects(pattern!, synths[stage].stack.stackName), stage).toBe(true);
    expect(selects(pattern!, ACCOUNT_STACK_NAME)).toBe(false);
  });
});

describe("docs/deploy.md's figures", () => {
  const page = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');

  test('the alarm count and the metrics they watch are those of the template, for both stages', () => {
    for (const stage of STAGE_NAMES) {
      const alarms = ofType(stage, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
      const watched = alarms.reduce(
        (n, a) => n + (a.Metrics ? a.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).length : 1),
        0,
      );
      expect(page).toContain(`${alarms.length} alarms watching ${watched} metrics ($${(watched * 0.1).toFixed(2)})`);
    }
  });

  test("per-method detailed metrics are counted: five metrics for each of the stage's methods", () => {
    for (const stage of STAGE_NAMES) {
      const methods = ofType(stage, 'AWS::ApiGateway::Method').length;
      const [[, apiStage]] = ofType(stage, 'AWS::ApiGateway::Stage') as [[string, Resource]];
      expect(apiStage.Properties.MethodSettings).toEqual([expect.objectContaining({ MetricsEnabled: true })]);
      expect(page).toContain(`${methods} methods x 5 metrics = ${methods * 5} metrics, up to $${(methods * 5 * 0.3).toFixed(2)}`);
    }
  });
});
