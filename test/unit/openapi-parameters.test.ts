import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_PAGE_DEPTH, MAX_PAGE_SIZE } from '#domain/limits';
import { LIST_PARAMETERS } from '#http/query';
import { routes } from '#http/routes';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';

/**
 * What openapi.json says of each route's parameters, as Swagger UI shows them: `company_slug` first
 * of the query and required wherever the route can only read it there, what each parameter is,
 * numbers as bounded integers, lists as arrays whose comma form is said. (The document is held equal
 * to what the code builds by test/integration/openapi.test.ts.)
 */
const doc = JSON.parse(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8')) as Record<string, any>;
const operations = routes.map((r) => ({ route: r, op: doc.paths[r.path][r.method.toLowerCase()] }));
const query = (op: any) => (op.parameters as any[]).filter((p) => p.in === 'query');

describe("openapi.json's parameters", () => {
  test.each(operations.map((o) => [`${o.route.method} ${o.route.path}`, o]))(
    '%s: company_slug first of the query',
    (_name, { route, op }) => {
      const first = query(op)[0];
      expect(first.name).toBe('company_slug');
      const body = op.requestBody?.content['application/json'].schema;
      if (route.name === 'search') expect(first.required).toBe(false);
      else if (body) {
        // From the body or the query: the parameter and the body's member both say so.
        expect(first.required).toBe(false);
        expect(first.description).toMatch(/JSON body/);
        expect(body.properties.company_slug.description).toMatch(/query string/);
      } else expect(first.required).toBe(true);
    },
  );

  test('every GET and every route without a body requires company_slug (search apart)', () => {
    const optional = operations.filter(({ op }) => !query(op)[0].required).map(({ route }) => `${route.method} ${route.path}`);
    expect(optional.every((name) => !name.startsWith('GET ') || name === 'GET /search')).toBe(true);
    expect(optional.length).toBeLessThan(operations.length / 2);
  });

  test('every query parameter says what it is; limit, per_page and page are integers with their bounds', () => {
    for (const { route, op } of operations)
      for (const p of query(op)) {
        expect(p.description, `${route.name} ${p.name}`).toMatch(/\w{3}/);
        if (['limit', 'per_page'].includes(p.name)) expect(p.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE });
        if (p.name === 'page') expect(p.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_PAGE_DEPTH });
      }
  });

  test('list parameters are arrays of repeated keys, their comma form said where the parameter is', () => {
    const lists = operations.flatMap(({ op }) => query(op).filter((p) => LIST_PARAMETERS.has(p.name)));
    expect(new Set(lists.map((p) => p.name))).toEqual(LIST_PARAMETERS);
    for (const p of lists) {
      expect(p).toMatchObject({ style: 'form', explode: true, schema: { type: 'array', items: { type: 'string' } } });
      expect(p.description).toMatch(/repeat the parameter .* or separate .* with commas/);
    }
  });
});
