import { describe, expect, test } from 'vitest';
import { ValidationFailed } from '#domain/errors';
import { queryOf } from '#http/query';

describe('queryOf', () => {
  test('an event without multiValueQueryStringParameters (a hand-written sample) reads queryStringParameters', () => {
    expect(queryOf({ queryStringParameters: { company_slug: 'acme-corp' }, multiValueQueryStringParameters: null })).toEqual({
      company_slug: 'acme-corp',
    });
    expect(queryOf({ queryStringParameters: null, multiValueQueryStringParameters: null })).toEqual({});
  });

  test('list parameters join every repetition in order; others keep their one value', () => {
    const query = queryOf({
      queryStringParameters: { task_uuids: 'c', company_slug: 'acme-corp' },
      multiValueQueryStringParameters: { task_uuids: ['a,b', '', 'c'], company_slug: ['acme-corp', 'acme-corp'] },
    });
    expect(query).toEqual({ task_uuids: 'a,b,,c', company_slug: 'acme-corp' });
  });

  test('names such as __proto__ and constructor stay plain parameters', () => {
    const query = queryOf({
      queryStringParameters: null,
      multiValueQueryStringParameters: { ['__proto__']: ['x'], constructor: ['y', 'y'] },
    });
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.keys(query).sort()).toEqual(['__proto__', 'constructor']);
    expect(query.constructor).toBe('y');
  });

  test('a repeated single-valued parameter with different values is refused, value and rule named', () => {
    const refuse = () =>
      queryOf({ queryStringParameters: { limit: '\u202e2' }, multiValueQueryStringParameters: { limit: ['1', '\u202e2'] } });
    expect(refuse).toThrow(ValidationFailed);
    expect(refuse).toThrow('limit: ["1","\\u202E2"] is given twice with different values; send it once');
  });
});
