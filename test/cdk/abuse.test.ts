import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { TOKEN_VALIDATION_REGEX } from '#cdk/api';
import { buildApp } from '#cdk/app';
import { REQUESTS_PER_ADDRESS_PER_MINUTE } from '#cdk/web-acl';
import { newToken } from '#domain/tokens';
import { routes } from '#http/routes';
import {
  CONSUMER_TABLE_ACCESS,
  countPatterns,
  indexKeyPatterns,
  leadingKeyPatterns,
  readOnlyPatterns,
  routeTableAccess,
  type TableAccess,
} from '#lib/tableAccess';
import { synthesize } from './synth.ts';

// A synthesized template is untyped JSON; the assertions below walk it freely.
type Resource = { Type: string; Properties: Record<string, any> };
const resourcesOf = (opts: Parameters<typeof synthesize>[0]) =>
  Object.entries(synthesize({ bundle: false, nag: false, ...opts }).template.toJSON().Resources as Record<string, Resource>);
const ofType = (resources: [string, Resource][], type: string) => resources.filter(([, r]) => r.Type === type);

/** What the gateway turns away before the service spends anything on it (issue: abuse-proof). */
describe('the web ACL', () => {
  test('prod has one: a per-address rate rule in front of the stage, blocking an address over its rate', () => {
    const resources = resourcesOf({ stage: 'prod' });
    const [[aclId, acl]] = ofType(resources, 'AWS::WAFv2::WebACL') as [[string, Resource]];
    expect(acl.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    expect(acl.Properties.Rules).toEqual([
      expect.objectContaining({
        Name: 'requests-per-address',
        Action: { Block: {} },
        Statement: { RateBasedStatement: { Limit: REQUESTS_PER_ADDRESS_PER_MINUTE, EvaluationWindowSec: 60, AggregateKeyType: 'IP' } },
        VisibilityConfig: expect.objectContaining({ CloudWatchMetricsEnabled: true }),
      }),
    ]);
    const [[, association]] = ofType(resources, 'AWS::WAFv2::WebACLAssociation') as [[string, Resource]];
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const [[stageId]] = ofType(resources, 'AWS::ApiGateway::Stage') as [[string, Resource]];
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
  });

  test('the API is regional, so the rule sees each client address rather than a CloudFront edge', () => {
    for (const stage of ['dev', 'prod'] as const) {
      const [[, api]] = ofType(resourcesOf({ stage }), 'AWS::ApiGateway::RestApi') as [[string, Resource]];
      expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    }
  });

  test('dev has none; -c webAcl=false leaves it out of prod, -c webAcl=true puts it in dev, anything else is refused', () => {
    expect(ofType(resourcesOf({ stage: 'dev' }), 'AWS::WAFv2::WebACL')).toHaveLength(0);
    expect(ofType(resourcesOf({ stage: 'prod', context: { webAcl: 'false' } }), 'AWS::WAFv2::WebACL')).toHaveLength(0);
    expect(ofType(resourcesOf({ stage: 'dev', context: { webAcl: 'true' } }), 'AWS::WAFv2::WebACL')).toHaveLength(1);
    expect(() => buildApp({ nag: false, context: { webAcl: 'yes' } })).toThrow(/-c webAcl="yes": use true or false/);
  });

  test('a blocked address gets a 429 problem with Retry-After (the WAF_FILTERED gateway response)', () => {
    const [[, response]] = ofType(resourcesOf({ stage: 'prod' }), 'AWS::ApiGateway::GatewayResponse').filter(
      ([, r]) => r.Properties.ResponseType === 'WAF_FILTERED',
    ) as [[string, Resource]];
    expect(response.Properties.StatusCode).toBe('429');
    expect(response.Properties.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'60'");
    expect(response.Properties.ResponseTemplates['application/json']).toContain('"code":"rate_limited"');
  });
});

describe("the gateway's token check", () => {
  const shape = new RegExp(TOKEN_VALIDATION_REGEX);

  test('takes the exact shape of our tokens, and nothing else, so junk never invokes the authorizer', () => {
    expect(TOKEN_VALIDATION_REGEX).toBe('^Bearer pls_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$');
    for (let i = 0; i < 20; i++) expect(shape.test(`Bearer ${newToken().token}`)).toBe(true);
    const token = newToken().token;
    for (const junk of [
      'Bearer x',
      `bearer ${token}`,
      `Bearer  ${token}`,
      `Bearer ${token}=`,
      `Bearer ${token.slice(0, -1)}`,
      `Basic ${token}`,
    ])
      expect(shape.test(junk), junk).toBe(false);
  });
});

describe('least privilege over data', () => {
  const resources = () => resourcesOf({ stage: 'dev' });
  const policyStatements = (functionPrefix: string) => {
    const all = resources();
    const [, fn] = all.find(([id, r]) => r.Type === 'AWS::Lambda::Function' && new RegExp(`^${functionPrefix}[0-9A-F]{8}$`).test(id))!;
    const role = fn.Properties.Role['Fn::GetAtt'][0];
    return ofType(all, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: any }[])
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
  };
  const functionIdOf = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, _d: string, c: string) => c.toUpperCase());

  /** What the template lets a function do to the table: each statement's partition patterns, whether it writes, on the table or an index. */
  const STREAM_ACTIONS = /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/;
  const grantsOf = (name: string) =>
    policyStatements(functionIdOf(name))
      // The stream's own actions name the stream, not the table's items.
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:') && !STREAM_ACTIONS.test(a)))
      .map((s) => ({
        on: JSON.stringify(s.Resource).includes('/index/') ? 'index' : 'table',
        patterns: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined,
        writes: [s.Action].flat().some((a) => /Put|Update|Delete|Write/.test(a)),
        scans: [s.Action].flat().includes('dynamodb:Scan'),
      }));
  /** The same, as lib/tableAccess.ts declares it: the statements the template must hold, and no other. */
  const declared = (access: TableAccess) => [
    { on: 'table', patterns: leadingKeyPatterns(access), writes: access.write, scans: false },
    ...(readOnlyPatterns(access).length ? [{ on: 'table', patterns: readOnlyPatterns(access), writes: false, scans: false }] : []),
    ...(countPatterns(access).length ? [{ on: 'table', patterns: countPatterns(access), writes: true, scans: false }] : []),
    ...(access.indexes.length ? [{ on: 'index', patterns: indexKeyPatterns(access), writes: false, scans: false }] : []),
  ];
  const functions = [
    ...routes.map((r) => [r.name, r.access === 'none' ? undefined : routeTableAccess(r)] as const),
    ...Object.entries(CONSUMER_TABLE_ACCESS).map(([name, access]) => [name, access as TableAccess] as const),
  ];

  test.each(functions)(
    '%s: the template grants it exactly the partitions lib/tableAccess.ts declares (its indexes on their own partitions), never a Scan',
    (name, access) => {
      // A route that never touches the table may do nothing to it.
      expect(grantsOf(name)).toEqual(access ? declared(access) : []);
    },
  );

  test("docs/architecture.md's table of what each function may reach is lib/tableAccess.ts's", () => {
    const code = (ps: string[]) => (ps.length ? ps.map((p) => `\`${p}\``).join(' ') : '-');
    const row = ([name, a]: (typeof functions)[number]) =>
      a
        ? `| ${name} | ${a.write ? code(leadingKeyPatterns(a)) : '-'} | ${code([...(a.write ? [] : leadingKeyPatterns(a)), ...readOnlyPatterns(a)])} | ${code(countPatterns(a))} | ${
            a.indexes.length ? a.indexes.map((i) => `${i} (${code(indexKeyPatterns({ ...a, indexes: [i] }))})`).join(', ') : '-'
          } |`
        : `| ${name} | - | - | - | - |`;
    const page = readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8');
    const header =
      '| function | writes and reads | reads only | counts (adds to, reads) | indexes (their partitions) |\n|---|---|---|---|---|\n';
    expect(page).toContain(`${header}${functions.map(row).join('\n')}\n\n`);
  });

  test('no token items, receipts or Idempotency-Keys but where declared; the webhooks room alone reaches its partitions, and reads the workspace alone', () => {
    const webhooksRoom = new Set([...routes.filter((r) => r.path.startsWith('/webhook')).map((r) => r.name), 'webhook-deliverer']);
    for (const [name] of functions) {
      const grants = grantsOf(name);
      const all = grants.flatMap((g) => g.patterns ?? []);
      expect(all.includes('TOKEN#*'), name).toBe(name === 'authorizer');
      expect(all.includes('RECEIPT#*'), name).toBe(name === 'stream-processor' || name === 'inbound-consumer');
      expect(all.includes('IDEMPOTENCY#*'), name).toBe(routes.some((r) => r.name === name && r.method === 'POST' && r.access !== 'none'));
      const room = all.filter((p) => p === 'HOOKS#*' || p === 'WEBHOOK#*');
      if (!webhooksRoom.has(name)) expect(room, name).toEqual([]);
      else if (grants.length) {
        expect(room.sort(), name).toEqual(['HOOKS#*', 'WEBHOOK#*']);
        // The workspace's collection (its projects, for a project filter) only to read, never to write.
        for (const g of grants) if (g.patterns?.includes('WS#*')) expect(g.writes, name).toBe(false);
      }
      // Every statement on the table or an index names the partitions it reaches.
      for (const g of grants) expect(g.patterns, `${name} ${g.on}`).toEqual(expect.any(Array));
    }
  });

  test("the stack's bus refuses events of the service's source from anyone but the stream processor", () => {
    const all = resources();
    const [[, policy]] = ofType(all, 'AWS::Events::EventBusPolicy') as [[string, Resource]];
    const statement = policy.Properties.Statement;
    expect(statement).toMatchObject({
      Sid: 'OnlyTheStreamProcessorPublishesTheServiceSource',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'events:PutEvents',
      Condition: { StringEquals: { 'events:source': 'project-label-service' } },
    });
    const [, processor] = all.find(([id, r]) => r.Type === 'AWS::Lambda::Function' && /^StreamProcessor[0-9A-F]{8}$/.test(id))!;
    expect(statement.Condition.ArnNotEquals['aws:PrincipalArn']).toEqual({
      'Fn::GetAtt': [processor.Properties.Role['Fn::GetAtt'][0], 'Arn'],
    });
  });
});

describe("the stage's budget", () => {
  test("prod's stage-wide throttle is above the mix's first key (docs/capacity.md), and a token's default a small share of it", async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../docs/capacity.md', import.meta.url), 'utf8');
    const firstKey = Number(/The first key to saturate is `[^`]+`, at ([\d,]+) requests per second/.exec(page)![1]!.replace(/,/g, ''));
    const { STAGES } = await import('#cdk/stage');
    const { DEFAULT_RATE_LIMIT } = await import('#domain/tokens');
    expect(STAGES.prod.throttle.rateLimit).toBeGreaterThanOrEqual(firstKey);
    expect(DEFAULT_RATE_LIMIT.rate * 10).toBeLessThanOrEqual(STAGES.prod.throttle.rateLimit);
    expect(DEFAULT_RATE_LIMIT.burst * 10).toBeLessThanOrEqual(STAGES.prod.throttle.burstLimit);
  });

  test('a deployment whose account quotas were raised raises the stage throttle with -c stageRate= (and -c stageBurst=)', async () => {
    const { STAGES, withThrottle } = await import('#cdk/stage');
    const throttleOf = (context: Record<string, unknown>) => {
      const [[, stage]] = ofType(resourcesOf({ stage: 'prod', context }), 'AWS::ApiGateway::Stage') as [[string, Resource]];
      const all = (stage.Properties.MethodSettings as Record<string, unknown>[]).find((m) => m.ResourcePath === '/*');
      return [all?.ThrottlingRateLimit, all?.ThrottlingBurstLimit];
    };
    expect(throttleOf({})).toEqual([STAGES.prod.throttle.rateLimit, STAGES.prod.throttle.burstLimit]);
    expect(throttleOf({ stageRate: '12000' })).toEqual([12_000, 24_000]);
    expect(throttleOf({ stageRate: '12000', stageBurst: '15000' })).toEqual([12_000, 15_000]);
    // Only the flags given change; the stage's own figures otherwise.
    expect(withThrottle(STAGES.prod, undefined, 5_000).throttle).toEqual({ rateLimit: STAGES.prod.throttle.rateLimit, burstLimit: 5_000 });
    expect(withThrottle(STAGES.dev, undefined, undefined)).toBe(STAGES.dev);
    expect(withThrottle(STAGES.prod, '1000000', undefined).throttle).toEqual({ rateLimit: 1_000_000, burstLimit: 1_000_000 });
    for (const bad of ['0', '-5', '1.5', '1e4', 'lots', '', ' 100', '1000001', 0, 2.5])
      expect(() => withThrottle(STAGES.prod, bad, undefined)).toThrow(
        /^-c stageRate=.*: use a whole number of requests a second from 1 to 1,000,000\.$/,
      );
    expect(() => withThrottle(STAGES.prod, '100', 'x')).toThrow(/^-c stageBurst="x"/);
  });
});
