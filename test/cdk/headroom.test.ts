import { describe, expect, test } from 'vitest';
import { functionId } from '#cdk/parts';
import { roomOf } from '#cdk/rooms';
import { routes, type Route } from '#http/routes';
import { assertSelfContained } from './flatten.ts';
import { synthesize, type Synthesized } from './synth.ts';

/**
 * Room to grow: the stacks CloudFormation gets hold today's service far inside its limits, and twice
 * its routes with a fifth of every limit to spare, so the next capabilities' routes deploy without a
 * restructuring first. The rooms (lib/cdk/rooms.ts) are what makes it so; docs/deploy.md says how they fit.
 */

/** CloudFormation's limits on one template (its quotas page). */
const LIMITS = { resources: 500, bytes: 1_000_000, outputs: 200, parameters: 200 };
const SPARE = 0.8;

type Sizes = { resources: number; bytes: number; outputs: number; parameters: number };
const sizesOf = (t: Synthesized['templates'][number]): Sizes => ({
  resources: Object.keys(t.json.Resources ?? {}).length,
  bytes: Buffer.byteLength(t.text),
  outputs: Object.keys(t.json.Outputs ?? {}).length,
  parameters: Object.keys(t.json.Parameters ?? {}).length,
});

/** Every route again under a new name and path, in the same room (its handler): the table twice as long. */
const doubled: readonly Route[] = [...routes, ...routes.map((r) => ({ ...r, name: `${r.name}-again`, path: `/again${r.path}` }))];

const STAGES = ['dev', 'prod'] as const;

describe.each(STAGES)('%s', (stage) => {
  test("today's routes: no template holds more than 250 resources or 500,000 bytes", () => {
    const { templates } = synthesize({ stage, bundle: false, nag: false });
    for (const t of templates) {
      const sizes = sizesOf(t);
      expect(sizes.resources, t.name).toBeLessThanOrEqual(250);
      expect(sizes.bytes, t.name).toBeLessThanOrEqual(500_000);
    }
  });

  test('twice the routes: every template within each of CloudFormation limits with a fifth to spare, cdk-nag and all', () => {
    const twice = synthesize({ stage, bundle: false, routes: doubled });
    expect(twice.template.toJSON().Resources).toSatisfy(
      (resources: Record<string, { Type: string }>) =>
        Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function').length === doubled.length + 4,
    );
    for (const t of twice.templates) {
      const sizes = sizesOf(t);
      for (const limit of Object.keys(LIMITS) as (keyof Sizes)[])
        expect(sizes[limit], `${t.name} ${limit}`).toBeLessThanOrEqual(LIMITS[limit] * SPARE);
    }
  });
});

describe('rooms', () => {
  const { templates } = synthesize({ stage: 'dev', bundle: false, nag: false });
  const [root, ...rooms] = templates;
  const functionsIn = (t: (typeof templates)[number]) =>
    Object.entries(t.json.Resources as Record<string, { Type: string }>)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id]) => id);

  test("each folder of route handlers is a nested stack of the root's, holding exactly its routes' functions", () => {
    const byRoom = new Map<string, Route[]>();
    for (const route of routes) byRoom.set(roomOf(route), [...(byRoom.get(roomOf(route)) ?? []), route]);
    expect(rooms.map((t) => t.name).sort()).toEqual([...byRoom.keys()].map((room) => `${root!.name}/${functionId(room)}Room`).sort());
    for (const [room, its] of byRoom) {
      const template = rooms.find((t) => t.name.endsWith(`/${functionId(room)}Room`))!;
      const ids = functionsIn(template);
      expect(ids.map((id) => id.slice(0, -8)).sort(), room).toEqual(its.map((r) => functionId(r.name)).sort());
    }
    const nested = Object.values(root!.json.Resources as Record<string, { Type: string }>).filter(
      (r) => r.Type === 'AWS::CloudFormation::Stack',
    );
    expect(nested).toHaveLength(rooms.length);
  });

  test('the root keeps the shared parts and the functions no route owns; a room has no table, API, queue or alarm of its own', () => {
    expect(
      functionsIn(root!)
        .map((id) => id.slice(0, -8))
        .sort(),
    ).toEqual(['Authorizer', 'InboundConsumer', 'StreamProcessor', 'WebhookDeliverer'].sort());
    const shared = [
      'AWS::DynamoDB::Table',
      'AWS::ApiGateway::RestApi',
      'AWS::ApiGateway::Method',
      'AWS::SQS::Queue',
      'AWS::CloudWatch::Alarm',
    ];
    for (const room of rooms) {
      const types = new Set(Object.values(room.json.Resources as Record<string, { Type: string }>).map((r) => r.Type));
      for (const type of shared) expect(types.has(type), `${room.name} ${type}`).toBe(false);
      expect([...types].sort(), room.name).toEqual(
        ['AWS::IAM::Policy', 'AWS::IAM::Role', 'AWS::Lambda::Function', 'AWS::Lambda::Permission', 'AWS::Logs::LogGroup'].sort(),
      );
    }
  });

  test("a route's room is its handler's folder, and a handler outside one is refused", () => {
    expect(roomOf({ handler: 'functions/labels/create.ts' })).toBe('labels');
    expect(() => roomOf({ handler: 'functions/create.ts' })).toThrow(/folder of functions/);
    expect(() => roomOf({ handler: 'lib/labels/create.ts' })).toThrow(/folder of functions/);
  });

  test('every template names only what it holds or takes as a parameter (the merged view the assertions read would hide one that does not)', () => {
    for (const t of templates) expect(() => assertSelfContained(t.name, t.json as never), t.name).not.toThrow();
    const room = rooms[0]!.json;
    const [fnId] = functionsIn(rooms[0]!);
    const tableInRoot = Object.entries(root!.json.Resources as Record<string, { Type: string }>).find(
      ([, r]) => r.Type === 'AWS::DynamoDB::Table',
    )![0];
    const reaching = structuredClone(room) as { Resources: Record<string, { Properties: Record<string, unknown> }> };
    reaching.Resources[fnId!]!.Properties.Description = { 'Fn::GetAtt': [tableInRoot, 'Arn'] };
    expect(() => assertSelfContained('a room', reaching as never)).toThrow(new RegExp(tableInRoot));
    const subbed = structuredClone(room) as typeof reaching;
    subbed.Resources[fnId!]!.Properties.Description = { 'Fn::Sub': `\${${tableInRoot}} and \${!Literal} and \${AWS::Region}` };
    expect(() => assertSelfContained('a room', subbed as never)).toThrow(/names what it does not hold: Table/);
  });
});
