import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { ASYNCAPI_FILE } from '#lib/asyncapi/document';
import { buildOpenApi, OPENAPI_FILE } from '#lib/openapi/document';
import { LOCAL_SERVER_URL } from '#lib/openapi/servers';
import { repoRoot } from '#lib/paths';
import { apiUrl, call } from '#support/api';
import { checkAnswer } from '#support/openapi';

const committed = () => JSON.parse(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8'));

describe('openapi.json', () => {
  test('is what `npm run openapi` makes of the code now (run it and commit the file when this fails)', async () => {
    expect(committed()).toEqual(JSON.parse(JSON.stringify(await buildOpenApi())));
  });

  test("is a valid OpenAPI 3.1 document by the specification's own schema", async () => {
    const validator = new Validator();
    const result = await validator.validate(committed());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('documents every route, its scope, the bearer scheme and problem answers', () => {
    const doc = committed();
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op.operationId).toBe(r.name);
      expect(op['x-scope']).toBe(r.scope);
      expect(op['x-reads']).toBe(r.reads);
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(op.responses['401'].content['application/problem+json']).toBeDefined();
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('the answer check the suites run on every response', () => {
  const label = JSON.stringify({ data: { id: 1, slug: 'bug', title: 'Bug', color: 'FF0000' } });
  test('accepts a documented answer', () => {
    expect(() => checkAnswer('GET', '/projects-labels/bug?company_slug=a', 200, 'application/json', label)).not.toThrow();
  });
  test.each([
    ['a body off its schema', 'GET', '/projects-labels/bug', 200, 'application/json', label.replace('FF0000', 'red')],
    ['a missing member', 'GET', '/projects-labels/bug', 200, 'application/json', JSON.stringify({ data: { id: 1, slug: 'bug' } })],
    ['an undocumented status', 'GET', '/projects-labels/bug', 201, 'application/json', label],
    ['an undocumented content type', 'GET', '/projects-labels/bug', 200, 'text/html', '<p>'],
    ['a problem off the problem schema', 'GET', '/projects-labels/bug', 404, 'application/problem+json', '{"status":404}'],
    ['an unrouted answer that is not a problem', 'GET', '/nowhere', 404, 'text/plain', 'Not Found'],
    ['a 304 with a body', 'GET', '/projects-labels/bug', 304, null, label],
  ])('refuses %s', (_case, method, path, status, type, body) => {
    expect(() => checkAnswer(method, path, status, type, body)).toThrow(/openapi\.json/);
  });
  test("refuses a problem whose status is not the answer's, and a 201 without its Location", () => {
    const problem = (status: number) =>
      JSON.stringify({
        type: 'https://project-label-service.dev/problems/not_found',
        title: 'Not Found',
        status,
        detail: 'x',
        message: 'x',
        code: 'not_found',
        error_code: 'NOT_FOUND',
        request_id: 'r',
      });
    const headers = new Headers({ 'X-Request-Id': 'r', 'Cache-Control': 'no-store' });
    expect(() => checkAnswer('GET', '/projects-labels/bug', 404, 'application/problem+json', problem(404), headers)).not.toThrow();
    expect(() => checkAnswer('GET', '/projects-labels/bug', 404, 'application/problem+json', problem(409), headers)).toThrow(/status/);
    const created = JSON.stringify({ data: { id: 1, slug: 'bug', title: 'Bug', color: 'FF0000' } });
    expect(() => checkAnswer('POST', '/projects-labels', 201, 'application/json', created, headers)).toThrow(/Location/);
    headers.set('Location', '/projects-labels/bug?company_slug=a');
    expect(() => checkAnswer('POST', '/projects-labels', 201, 'application/json', created, headers)).not.toThrow();
  });
});

describe('npm start serves the document and a reference page', () => {
  test('GET /asyncapi.json is the committed AsyncAPI document of the events', async () => {
    const served = await call('GET', '/asyncapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.body).toEqual(JSON.parse(readFileSync(join(repoRoot, ASYNCAPI_FILE), 'utf8')));
  });

  test('GET /openapi.json is the committed document, naming the server it is served from; /docs renders it with Swagger UI from its package', async () => {
    const served = await call('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = committed();
    // Swagger UI's "Try it out" calls this npm start, whatever its HOST and PORT, in place of the templated one.
    const servers = (doc.servers as { url: string }[]).map((s) =>
      s.url === LOCAL_SERVER_URL ? { url: new URL(apiUrl()).origin, description: expect.any(String) } : s,
    );
    expect(doc.servers.map((s: { url: string }) => s.url)).toContain(LOCAL_SERVER_URL);
    expect(served.body).toEqual({ ...doc, servers });
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain("url: '/openapi.json'");
    for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']) {
      const res = await call('GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.text.length).toBeGreaterThan(1000);
    }
    // Nothing else of the package is reachable.
    expect((await call('GET', '/docs/package.json')).status).toBe(404);
    expect((await call('GET', '/docs/../package.json')).status).toBe(404);
  });
});
