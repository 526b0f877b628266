import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH } from '#domain/limits';
import { nestsDeeperThan } from '#domain/jsonDepth';
import { routes } from '#http/routes';
import { call, tokenFor } from '#support/api';
import { seedFixture } from '#support/fixtures';
import { streamDrained } from '#support/settle';
import { sampleRequest, withQuery, type Fixture } from '#support/requests';

/**
 * Deeply nested JSON: a body of tens of thousands of levels (under the 64 KB limit) is refused with a
 * 4xx problem before anything walks it recursively (the Idempotency-Key fingerprint did, and
 * overflowed the stack: a 500 on every POST). The limit is MAX_JSON_DEPTH levels of objects and arrays.
 */
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const objects = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;

let fixture: Fixture;
let token: string;
/** The fixture as it was before any deep body (ETags of its project and labels). */
let before: (string | null)[];
const fixtureTags = () =>
  Promise.all(
    [`/projects/${fixture.project}`, `/projects-labels/${fixture.label}`, '/projects-labels'].map(
      async (path) => (await call('GET', withQuery(path, { company_slug: fixture.ws }), { token })).headers.get('etag') ?? 'none',
    ),
  );
beforeAll(async () => {
  fixture = await seedFixture('deep');
  token = await tokenFor(fixture.ws);
  await streamDrained(); // its counters derived: the project's ETag covers them
  before = await fixtureTags();
});
afterAll(async () => {
  // Nothing any of them did changed the fixture.
  expect(await fixtureTags()).toEqual(before);
});

const writeRoutes = routes.filter((r) => r.method !== 'GET');

describe.each(writeRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_name, route) => {
  test.each([
    ['30,000 nested arrays', arrays(30_000)],
    ['10,000 nested objects', objects(10_000)],
    [`${MAX_JSON_DEPTH + 1} levels inside a valid body`, `{"company_slug":"x","title":${objects(MAX_JSON_DEPTH)}}`],
  ])('%s, with an Idempotency-Key: a 422 naming the body', async (_case, body) => {
    const sample = sampleRequest(route, fixture);
    const res = await call(route.method, withQuery(sample.path, { company_slug: fixture.ws, ...sample.query }), {
      token,
      rawBody: body,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.errors).toEqual([{ field: 'body', message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) }]);
  });
});

test(`${MAX_JSON_DEPTH} levels are not refused for their depth (the schema decides)`, async () => {
  const res = await call('POST', withQuery('/projects-labels', { company_slug: fixture.ws }), {
    token,
    rawBody: `{"title":${objects(MAX_JSON_DEPTH - 1)},"color":"FF0000"}`,
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['title']);
});

describe('the depth scan', () => {
  test('counts only brackets outside strings, escaped quotes included', () => {
    expect(nestsDeeperThan('{"a":"[[[[[[","b":"\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeperThan(arrays(1_000_000), MAX_JSON_DEPTH)).toBe(true);
  });
});
