import { describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { apiDocs } from '#lib/openapi/apiDocs';

/** The OpenAPI document's descriptions come from docs/api.md, said once there; a route it does not describe fails the build. */
describe('what docs/api.md says of each endpoint', () => {
  const page = [
    '## Endpoints',
    '',
    '### Things',
    '',
    'Every thing of a workspace,',
    'see [Errors](#errors) and [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457).',
    '',
    '#### `GET /things`: list them',
    '',
    'Paginated',
    'like the rest.',
    '',
    '- one',
    '- two',
    '',
    '```sh',
    'curl -s "$API/things"',
    '# → 200 {"data":[]}',
    '```',
    '',
    'After the example: not said.',
    '',
    '#### `GET /things/{id}`: one thing',
    '',
    '```sh',
    '#### `DELETE /things/{id}`: inside a code block, no heading',
    '```',
    '',
    '#### `PUT /things/{id}`',
    '',
    '### Empty',
    '',
    '#### `POST /things`: make one',
  ].join('\n');
  const docs = apiDocs(page);

  test("an operation's summary is its heading's phrase, its description the paragraphs before its example (or the phrase), relative links as their text", () => {
    expect(docs.summary('GET', '/things')).toBe('List them');
    expect(docs.operation('GET', '/things')).toBe('Paginated like the rest.\n\n- one\n- two');
    expect(docs.operation('GET', '/things/{id}')).toBe('One thing.');
    expect(docs.tag('things')).toBe('Every thing of a workspace, see Errors and [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457).');
  });

  test('a route without a section, or with nothing said of it, and a tag without a paragraph fail, naming them', () => {
    expect(() => docs.operation('DELETE', '/things/{id}')).toThrow(/no section for DELETE \/things\/\{id\}/);
    expect(() => docs.operation('GET', '/thing')).toThrow(/no section for GET \/thing:/);
    expect(() => docs.operation('PUT', '/things/{id}')).toThrow(/PUT \/things\/\{id\} says nothing/);
    expect(() => docs.summary('PUT', '/things/{id}')).toThrow(/heading of PUT \/things\/\{id\} says not what it does/);
    expect(() => docs.tag('empty')).toThrow(/tag empty/);
    expect(() => docs.tag('nowhere')).toThrow(/no heading "nowhere"/);
  });

  test('docs/api.md describes every route of the table, its summary an action (a verb first), never what it answers', () => {
    const real = apiDocs();
    const VERBS =
      /^(List|Get|Find|Create|Register|Update|Change|Rename|Delete|Remove|Duplicate|Search|Attach|Detach|Toggle|Rotate|Ping|Send|Redeliver) /;
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      expect(() => real.operation(route.method, route.path), name).not.toThrow();
      const summary = real.summary(route.method, route.path);
      expect(summary, name).toMatch(VERBS);
      expect(summary, name).not.toBe(route.answer.description);
      expect(summary.length, name).toBeLessThanOrEqual(50);
    }
  });
});
