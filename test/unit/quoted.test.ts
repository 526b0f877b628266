import fc from 'fast-check';
import type * as z from 'zod/mini';
import { describe, expect, test } from 'vitest';
import { ValidationFailed } from '#domain/errors';
import { QUOTED_CHARS, quoted } from '#domain/quoted';
import { parseInbound } from '#events/inbound';
import { repoRoot } from '#lib/paths';
import { loadHandler } from '#local/lambdaEvents';
import { hostileText } from '#support/hostile';
import { parseInput } from '#wire/validation';

/**
 * How a 422 names the value it refuses (domain/quoted.ts): quoted as JSON writes it, every unsafe
 * character escaped, cut between characters after 40 of them. And, through each route's own input
 * schema, that every refused value of limit, status, color and categories is named in its message.
 */

/** Characters a message never carries as themselves. */
const UNSAFE = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\p{Bidi_Control}\u200b\u2060\ufeff\u00ad]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text a quoted string names, as JSON reads it, and whether it was cut. */
function unquote(shown: string): { text: string; cut: boolean } {
  expect(shown.startsWith('"') && shown.endsWith('"'), shown).toBe(true);
  const inner = shown.slice(1, -1);
  const cut = inner.endsWith('…');
  return { text: JSON.parse(`"${cut ? inner.slice(0, -1) : inner}"`) as string, cut };
}

describe('quoted', () => {
  test.each<[string, unknown, string]>([
    ['text', 'secret', '"secret"'],
    ['an empty text', '', '""'],
    ['a number', 0, '0'],
    ['null', null, 'null'],
    ['true', true, 'true'],
    ['a list', ['t1', 7], '["t1",7]'],
    ['an object', { a: '\u202E' }, '{"a":"\\u202E"}'],
    ['quotes and backslashes', 'a"b\\c', '"a\\"b\\\\c"'],
    ['a NUL', 'a\u0000b', '"a\\u0000b"'],
    ['a right-to-left override', '\u202Etxt.exe', '"\\u202Etxt.exe"'],
    ['a lone high surrogate', 'a\ud800', '"a\\uD800"'],
    ['a lone low surrogate', '\udc00b', '"\\uDC00b"'],
    ['a zero-width space and a no-break space', 'a\u200bb\u00a0c', '"a\\u200Bb\\u00A0c"'],
    ['a line separator', 'a\u2028b', '"a\\u2028b"'],
    ['an astral format character, as a surrogate pair', 'a\u{E0001}', '"a\\uDB40\\uDC01"'],
    ['a 4-byte emoji', '😀', '"😀"'],
    ['letters of every script', 'Straße ＢＵＧ 日本', '"Straße ＢＵＧ 日本"'],
    ['41 characters, cut to 40', 'x'.repeat(41), `"${'x'.repeat(40)}…"`],
    ['a 10 KB text', 'y'.repeat(10_240), `"${'y'.repeat(40)}…"`],
    ['emoji, cut between them', '😀'.repeat(41), `"${'😀'.repeat(40)}…"`],
    ['escapes count in the 40', '\u0000'.repeat(10), `"${'\\u0000'.repeat(6)}…"`],
    ['accented letters stay whole', 'e\u0301'.repeat(30), `"${'e\u0301'.repeat(20)}…"`],
    ['one character of many marks: its first code points', `a${'\u0301'.repeat(100)}`, `"a${'\u0301'.repeat(39)}…"`],
  ])('%s', (_what, value, shown) => {
    expect(quoted(value)).toBe(shown);
  });

  test('property: any text is named safely, within the budget, as its start, whole characters only', () => {
    const anyText = fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 80 }));
    fc.assert(
      fc.property(anyText, (value) => {
        const shown = quoted(value);
        expect(shown).not.toMatch(UNSAFE);
        expect(shown.isWellFormed()).toBe(true);
        const { text, cut } = unquote(shown);
        expect(Array.from(shown.slice(1, cut ? -2 : -1)).length).toBeLessThanOrEqual(QUOTED_CHARS);
        if (!cut) {
          expect(text).toBe(value);
          return;
        }
        expect(value.startsWith(text) && text.length < value.length).toBe(true);
        // Cut at a grapheme boundary, unless the first character alone is longer than the budget.
        const first = graphemes.segment(value)[Symbol.iterator]().next().value!.segment;
        if (text.length >= first.length) expect(graphemes.segment(value).containing(text.length)?.index).toBe(text.length);
      }),
      { numRuns: 2000 },
    );
  });
});

type Schema = z.ZodMiniType;
const schemaOf = async (handler: string) => (await loadHandler<{ inputSchema: Schema }>(repoRoot, `functions/${handler}.ts`)).inputSchema;

/** The message of the one error a refused input gets. */
function refusal(schema: Schema, input: unknown): { field: string; message: string } {
  try {
    parseInput(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed);
    const { errors } = error as ValidationFailed;
    expect(errors).toHaveLength(1);
    expect((error as ValidationFailed).message).toBe(errors[0]!.message);
    return errors[0]!;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

describe('property: every refused value is named, through the route schemas', () => {
  const anyValue = fc.oneof(
    { weight: 4, arbitrary: fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 80 })) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 5 })) },
  );
  const expectNamed = (message: string, field: string, value: unknown) => {
    expect(message.startsWith(`${field}: ${quoted(value)} `), message).toBe(true);
    expect(message).not.toMatch(UNSAFE);
  };

  test('limit (GET /projects)', async () => {
    const schema = await schemaOf('projects/list');
    fc.assert(
      fc.property(
        fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 80 }), fc.integer({ min: -1000, max: 10_000_000 }).map(String)),
        (limit) => {
          fc.pre(!/^\d{1,6}$/.test(limit) || +limit < 1 || +limit > 100);
          const error = refusal(schema, { path: {}, query: { limit }, body: {} });
          expectNamed(error.message, 'limit', limit);
          expect(error.message).toMatch(/ use an integer from 1 to 100$/);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('status (GET /projects, PUT /projects/{slug})', async () => {
    const [list, update] = await Promise.all([schemaOf('projects/list'), schemaOf('projects/update')]);
    fc.assert(
      fc.property(anyValue, (status) => {
        fc.pre(!['in_progress', 'completed', 'archived'].includes(status as string));
        const inBody = refusal(update, { path: { slug: 'web' }, query: {}, body: { status } });
        expectNamed(inBody.message, 'status', status);
        if (typeof status === 'string') {
          expectNamed(refusal(list, { path: {}, query: { status }, body: {} }).message, 'status', status);
          expect(inBody.message).toMatch(/ is not allowed; use one of: in_progress, completed, archived$/);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('color (POST /projects-labels)', async () => {
    const schema = await schemaOf('labels/create');
    fc.assert(
      fc.property(anyValue, (color) => {
        fc.pre(typeof color !== 'string' || !/^#?[0-9A-Fa-f]{6}$/.test(color));
        expectNamed(refusal(schema, { path: {}, query: {}, body: { title: 'X', color } }).message, 'color', color);
      }),
      { numRuns: 500 },
    );
  });

  test('categories (GET /search), each by its place in the list', async () => {
    const schema = await schemaOf('search/search');
    fc.assert(
      fc.property(fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 80 })), fc.nat({ max: 3 }), (category, at) => {
        fc.pre(!category.includes(',') && !/^[a-z_]{1,32}$/.test(category.trim()));
        const categories = [...Array.from({ length: at }, () => 'projects'), category].join(',');
        const error = refusal(schema, { path: {}, query: { q: 'web', categories }, body: {} });
        expect(error.field).toBe(`categories[${at}]`);
        expectNamed(error.message, `categories[${at}]`, category.trim());
        expect(error.message).toContain(' is not a category; use one or more of projects, tasks, user_stories, sprints, wiki, notes');
      }),
      { numRuns: 500 },
    );
  });
});

describe('inbound events are refused the same way', () => {
  test('a dead letter names the field, the value and the rule', () => {
    const event = {
      'detail-type': 'Task Created',
      detail: { company_slug: 'acme', project_slug: 'Web\u202E', task_uuid: 't1', occurred_at: '2026-11-23T10:00:00Z' },
    };
    expect(() => parseInbound(JSON.stringify(event))).toThrow(
      'detail.project_slug: "Web\\u202E" is not a slug; use 1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen',
    );
    const { company_slug: _, ...detail } = event.detail;
    expect(() => parseInbound(JSON.stringify({ ...event, detail: { ...detail, project_slug: 'web' } }))).toThrow(
      'detail.company_slug is required: a slug, e.g. website-redesign',
    );
  });
});
