import * as z from 'zod';
import { describe, expect, test } from 'vitest';
import { ValidationFailed } from '#domain/errors';
import { labelFields } from '#wire/labelSchemas';
import { parseInput, text, workspaceSlug } from '#wire/validation';

describe('workspace slug', () => {
  test('comes from the query or the body', () => {
    expect(workspaceSlug('acme-corp', undefined)).toBe('acme-corp');
    expect(workspaceSlug(undefined, 'acme-corp')).toBe('acme-corp');
    expect(workspaceSlug('acme-corp', 'acme-corp')).toBe('acme-corp');
  });

  test.each([
    [undefined, undefined],
    ['', undefined],
    ['a', 'b'],
    ['Acme', undefined],
    [undefined, 42],
    ['acme corp', undefined],
    ['-acme', undefined],
  ])('rejects query %j with body %j', (q, b) => {
    expect(() => workspaceSlug(q, b)).toThrow(ValidationFailed);
  });
});

describe('field rules', () => {
  test('colors: six hex digits, # dropped, uppercased', () => {
    expect(labelFields.color.parse('#a1b2c3')).toBe('A1B2C3');
    expect(labelFields.color.parse('FF5733')).toBe('FF5733');
    for (const bad of ['#fff', 'FF57', 'ZZZZZZ', '#FF5733 ', 'FF5733FF']) expect(labelFields.color.safeParse(bad).success).toBe(false);
  });

  test('text is trimmed, bounded and free of control characters', () => {
    const t = text(1, 5, 20);
    expect(t.parse('  abc ')).toBe('abc');
    expect(t.safeParse('   ').success).toBe(false);
    expect(t.safeParse('abcdef').success).toBe(false);
    expect(t.safeParse('a\u0000b').success).toBe(false);
    expect(t.parse('a\tb')).toBe('a\tb');
  });

  test('parseInput lists every failing field by name', () => {
    const schema = z.object({ body: z.object({ a: z.string(), b: z.number() }), query: z.object({ c: z.string() }) });
    try {
      parseInput(schema, { body: {}, query: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).errors.map((e) => e.field).sort()).toEqual(['a', 'b', 'c']);
    }
  });
});
