import fc from 'fast-check';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getItems } from '#store/batches';
import { ItemType, keys } from '#store/keys';
import { scanWhere } from '#checker/invariants';
import { routes, type Route } from '#http/routes';
import { getLabel } from '#domain/labels';
import { getProject } from '#domain/projects';
import { call, tokenFor } from './api.ts';
import { seedFixture } from './fixtures.ts';
import { hostileText } from './hostile.ts';
import { withQuery, type Fixture } from './requests.ts';
import { loadHandler } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import { methodThrottles } from '#lib/aws/methodThrottles';
import { MAX_RATE_LIMIT } from '#domain/tokens';

/**
 * Property-based fuzzing over the HTTP API, generated from the route table and each route's zod
 * input schema: hostile bodies, query strings, path parameters, headers and content types.
 * Properties: never a 5xx; every failure is problem+json; a rejected request changes nothing.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 40);

function fieldsOf(schema: z.ZodType, part: 'path' | 'query' | 'body'): string[] {
  const shape = (schema as z.ZodObject<any>).shape?.[part] as z.ZodObject<any> | undefined;
  return shape?.shape ? Object.keys(shape.shape) : [];
}

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '#',
    '%',
    '../..',
    'WS#other',
    'PROJECT#x',
    '<script>',
    '\u0000',
    '🚀'.repeat(30),
    'a'.repeat(10_001),
    'ff5733',
    '#FF5733',
    'bug',
    'task-1',
  ),
  fc.integer({ min: 0, max: 300 }).map((n) => 'x'.repeat(n)),
  hostileText,
);
const deep = fc.integer({ min: 1, max: 2000 }).map((d) => JSON.parse('['.repeat(d) + ']'.repeat(d)));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 120 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 5 }),
  deep,
);

interface Case {
  pathSlug: string | null;
  query: Record<string, string>;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };
  contentType: string | null;
  extraHeader: [string, string] | null;
}

function caseFor(route: Route, schema: z.ZodType, fixture: Fixture): fc.Arbitrary<Case> {
  const queryKeys = [
    ...new Set([...fieldsOf(schema, 'query'), 'limit', 'per_page', 'cursor', 'project_slug', 'task_uuid', 'name', 'status']),
  ];
  const bodyKeys = [...new Set([...fieldsOf(schema, 'body'), 'company_slug', '__proto__', 'constructor'])];
  const slug = fc.oneof(
    fc.constantFrom(fixture.project, fixture.label, 'nope'),
    hostileString.filter((s) => s.length > 0 && s.length < 200),
  );
  const bodyValue = fc.oneof(fc.dictionary(fc.constantFrom(...bodyKeys), hostileValue, { maxKeys: bodyKeys.length }), hostileValue);
  const rawBody = fc.oneof(
    fc.constantFrom(
      '{',
      '{"title":',
      'null',
      '[]',
      '"str"',
      '1e999',
      '{"a":1,"a":2}',
      '\u0000',
      '{"title":"A","title":5,"color":"FF0000"}',
      'x'.repeat(70_000),
    ),
    fc
      .tuple(fc.constantFrom(...bodyKeys), hostileString, hostileString)
      .map(([k, a, b]) => `{${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`),
  );
  return fc.record({
    pathSlug: route.path.includes('{slug}') ? slug : fc.constant(null),
    query: fc.dictionary(
      fc.constantFrom(...queryKeys),
      hostileString.filter((s) => s.length < 1500),
      { maxKeys: 4 },
    ),
    body:
      route.method === 'GET'
        ? fc.constant({ kind: 'none' as const })
        : fc.oneof(
            fc.constant({ kind: 'none' as const }),
            bodyValue.map((value) => ({ kind: 'json' as const, value })),
            rawBody.map((text) => ({ kind: 'raw' as const, text })),
          ),
    contentType: fc.option(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/problem+json',
        'APPLICATION/JSON',
        '',
      ),
      { nil: null },
    ),
    extraHeader: fc.option(
      fc.tuple(
        fc.constantFrom('x-forwarded-for', 'x-company-slug', 'accept', 'content-length-x'),
        fc.string({ minLength: 1, maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'a')),
      ),
      { nil: null },
    ),
  });
}

/**
 * What a request could change: the workspace's items and the fixture project's and label's
 * collections. Left out: what the stream processor derives later from earlier, accepted requests
 * (use counters, their receipts, `labels_count`), which may land at any moment and are no request's
 * direct doing; and a cascade of an accepted delete is waited for before the snapshot is taken.
 */
const DERIVED_TYPES = new Set<unknown>([ItemType.labelUse, ItemType.streamReceipt]);
let fixtureIds: { project: string; label: number };

async function snapshot(f: Fixture): Promise<string> {
  await expect
    .poll(async () => (await getItems([keys.projectDeletion(fixtureIds.project), keys.labelDeletion(f.ws, fixtureIds.label)])).length, {
      timeout: 20_000,
    })
    .toBe(0);
  const partitions = [keys.workspace(f.ws)];
  const project = await getProject(f.ws, f.project).catch(() => null);
  if (project) partitions.push(...keys.projectShards(project.id));
  const label = await getLabel(f.ws, f.label).catch(() => null);
  if (label) partitions.push(...keys.labelCollectionShards(f.ws, label.id));
  const items = (await itemsOf(partitions))
    .filter((i) => !DERIVED_TYPES.has(i.type))
    .map(({ labels_count: _derived, ...rest }) => rest)
    .sort((a, b) => byKey(a.PK, b.PK) || byKey(a.SK, b.SK));
  return JSON.stringify(items, inNameOrder);
}

const byKey = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/**
 * Every item of `partitions` (26: the workspace's, the project's task shards, the label's collection shards), read
 * strongly in one scan of the file's table (a database of its own, of a few hundred items), not a Query each: the
 * snapshots were most of the fuzzing's time, about 30 calls each. Against another API's table (TEST_DYNAMODB_PORT) the
 * scan reads the whole of that table: the same items, at more cost.
 */
async function itemsOf(partitions: string[]): Promise<Record<string, unknown>[]> {
  const values = Object.fromEntries(partitions.map((pk, i) => [`:pk${i}`, pk]));
  return scanWhere({ FilterExpression: `PK IN (${Object.keys(values).join(', ')})`, ExpressionAttributeValues: values });
}

/** Maps with their members in name order: DynamoDB keeps attributes as maps, whose order a rewrite of the item may change. */
function inNameOrder(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The fuzzing of the routes of one of `count` files (every route falls in exactly one), on a fixture of
 * the file's own: the files share the run's workers. Each route's cases are the same in any split (one
 * seed per route).
 */
export function fuzzRoutes(index: number, count: number): void {
  const shard = routes.filter((_, i) => i % count === index);
  let cases = 0;
  const statuses = new Map<number, number>();
  let token: string;
  let fixture: Fixture;
  /**
   * The snapshot after the last case, when that case was refused and changed nothing: the next case's
   * snapshot before. Nothing but requests changes what a snapshot holds (what the stream derives is left
   * out, and a snapshot waits for the cascades of accepted deletes), so between a refused request and
   * the next one it stays as read: each refused case reads the table once, not twice.
   */
  let unchanged: string | undefined;
  beforeAll(async () => {
    fixture = await seedFixture('fuzz');
    token = await tokenFor(fixture.ws);
    fixtureIds = { project: (await getProject(fixture.ws, fixture.project)).id, label: (await getLabel(fixture.ws, fixture.label)).id };
  });
  afterAll(() => {
    console.log(
      `fuzz ${index + 1}/${count}: ${cases} cases (seed ${SEED}, ${RUNS_PER_ROUTE} per route), statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });

  describe.each(shard.map((r) => [r.name, r] as const))('%s', (_name, route) => {
    test('never answers 5xx, fails with problem+json, and a rejected request changes nothing', async () => {
      const handler = await loadHandler<{ inputSchema: z.ZodType }>(repoRoot, route.handler);
      // A route with a limit of its own in a token's plan (a request that can cost far more than its sample, at
      // one or two a second) is sent each case's request with a token whose burst is not spent yet: the fuzz is
      // about what the route answers, not about waiting out its limit (tested on its own).
      const own = methodThrottles(MAX_RATE_LIMIT).find((t) => t.method === route.method && t.path === route.path);
      const tokens = own
        ? await Promise.all(Array.from({ length: Math.ceil(RUNS_PER_ROUTE / own.burstLimit) }, () => tokenFor(fixture.ws)))
        : [token];
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(caseFor(route, handler.inputSchema, fixture), async (c) => {
          cases++;
          const path = route.path.replace('{slug}', c.pathSlug === null ? '' : encodeURIComponent(c.pathSlug));
          const query = { company_slug: fixture.ws, ...c.query };
          const headers: Record<string, string> = {};
          if (c.contentType !== null) headers['content-type'] = c.contentType;
          if (c.extraHeader) headers[c.extraHeader[0]] = c.extraHeader[1];
          const rawBody = c.body.kind === 'json' ? JSON.stringify(c.body.value) : c.body.kind === 'raw' ? c.body.text : undefined;
          const before = unchanged ?? (await snapshot(fixture));
          unchanged = undefined;
          const res = await call(route.method, withQuery(path, query), {
            token: tokens[Math.floor(sent++ / (own?.burstLimit ?? 1)) % tokens.length]!,
            headers,
            ...(rawBody !== undefined ? { rawBody } : {}),
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect(res.status, res.text).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.headers.get('content-type')).toBe('application/problem+json');
            expect(res.body).toMatchObject({
              status: res.status,
              title: expect.any(String),
              detail: expect.any(String),
              code: expect.any(String),
            });
            const after = await snapshot(fixture);
            expect(after).toBe(before);
            unchanged = after;
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    });
  });
}
