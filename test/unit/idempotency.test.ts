import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ValidationFailed } from '#domain/errors';
import { fingerprintOf, idempotencyKeyOf } from '#http/idempotency';
import { routes } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { loadHandler } from '#local/lambdaEvents';
import { hostileText } from '#support/hostile';

const post = (key: string | undefined) => ({ httpMethod: 'POST', headers: key === undefined ? {} : { 'idempotency-key': key } });
const request = (body: unknown, query: Record<string, string> | null = { company_slug: 'acme' }) => ({
  event: { httpMethod: 'POST', resource: '/projects', pathParameters: null, queryStringParameters: query },
  body,
});

/** Every way to write the same JSON object: members shuffled at every depth. */
const shuffled = (value: unknown, order: number[]): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffled(v, order));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const out: [string, unknown][] = [];
  entries.forEach((entry, i) => out.splice((order[i % order.length] ?? 0) % (out.length + 1), 0, entry));
  return Object.fromEntries(out.map(([k, v]) => [k, shuffled(v, order)]));
};

describe('Idempotency-Key', () => {
  test('every POST route takes keys, and no other route carries them', async () => {
    const taking = [];
    for (const route of routes) {
      const handler = await loadHandler<{ takesIdempotencyKeys: boolean }>(repoRoot, route.handler);
      if (handler.takesIdempotencyKeys) taking.push(route.name);
    }
    expect(taking.sort()).toEqual(
      routes
        .filter((r) => r.method === 'POST')
        .map((r) => r.name)
        .sort(),
    );
    expect(taking).toHaveLength(10);
  });

  test('visible ASCII of 1 to 255 characters is a key; anything else (hostile text included) is a 422 on the header', () => {
    expect(idempotencyKeyOf(post('0f8fad5b-d9cb-469f-a165-70867728950e'))).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(idempotencyKeyOf(post('~'.repeat(255)))).toBe('~'.repeat(255));
    expect(idempotencyKeyOf(post(undefined))).toBeUndefined();
    fc.assert(
      fc.property(
        fc.oneof(hostileText, fc.constant(''), fc.constant('x'.repeat(256))).filter((s) => !/^[\x21-\x7e]{1,255}$/.test(s)),
        (key) => {
          let thrown: unknown;
          try {
            idempotencyKeyOf(post(key));
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(ValidationFailed);
          expect((thrown as ValidationFailed).errors[0]?.field).toBe('Idempotency-Key');
        },
      ),
    );
  });

  test('only POSTs read it', () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect(idempotencyKeyOf({ httpMethod: method, headers: { 'idempotency-key': 'not valid at all' } })).toBeUndefined();
    }
  });

  test('the fingerprint ignores member order at every depth and tells apart any other difference', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.array(fc.nat(), { minLength: 1 }), (body, order) => {
        expect(fingerprintOf(request(shuffled(body, order)))).toBe(fingerprintOf(request(body)));
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.dictionary(fc.string(), json), (x, y) => {
        // As a parsed body would be (plain objects, own members only).
        const [a, b] = [x, y].map((v) => JSON.parse(JSON.stringify(v)) as unknown);
        fc.pre(!isDeepStrictEqual(a, b));
        expect(fingerprintOf(request(a))).not.toBe(fingerprintOf(request(b)));
      }),
    );
    expect(fingerprintOf(request({ a: 1 }))).not.toBe(fingerprintOf(request({ a: 1 }, { company_slug: 'other' })));
    expect(fingerprintOf(request({ a: 1 }))).not.toBe(fingerprintOf(request({ a: '1' })));
    expect(fingerprintOf(request({}))).not.toBe(fingerprintOf(request(null)));
  });
});
