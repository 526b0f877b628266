import { describe, expect, test } from 'vitest';
import { PreconditionFailed } from '#domain/errors';
import { PROBLEMS, toProblem } from '#wire/problems';
import { etagOf, ifMatchCheck, notModified } from '#http/etags';

const view = (r: { name: string }) => ({ name: r.name });
const tag = etagOf({ name: 'a' });

describe('entity tags', () => {
  test('strong, quoted, of the representation: equal data give equal tags, any change another', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf({ name: 'a' })).toBe(tag);
    expect(etagOf({ name: 'b' })).not.toBe(tag);
    expect(etagOf({ name: 'a', stats: { n: 1 } })).not.toBe(etagOf({ name: 'a', stats: { n: 2 } }));
  });

  test.each([
    [tag, true],
    [`W/${tag}`, true],
    [`"x", ${tag}`, true],
    [`"x",${tag}`, true],
    ['*', true],
    [' * ', true],
    ['"x"', false],
    ['', false],
    [tag.slice(1, -1), false],
    ['garbage', false],
  ])('If-None-Match %j: not modified = %s', (header, expected) => {
    expect(notModified(header, tag)).toBe(expected);
  });

  test('no If-None-Match: always modified', () => {
    expect(notModified(undefined, tag)).toBe(false);
  });

  test.each([
    [tag, true],
    [`"x", ${tag}`, true],
    [`W/${tag}`, false],
    ['"x"', false],
    ['', false],
    [tag.slice(1, -1), false],
  ])('If-Match %j on the current record: passes = %s', (header, passes) => {
    const check = ifMatchCheck(header, view)!;
    if (passes) expect(() => check({ name: 'a' })).not.toThrow();
    else expect(() => check({ name: 'a' })).toThrow(PreconditionFailed);
  });

  test('If-Match with the tag of an earlier state fails with 412 precondition_failed', () => {
    const check = ifMatchCheck(tag, view)!;
    let error: unknown;
    try {
      check({ name: 'changed' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PreconditionFailed);
    expect(PROBLEMS[toProblem(error).code].status).toBe(412);
  });

  test('no If-Match, or `*` (it holds whenever the resource exists; one that does not is a 404 first): no check at all', () => {
    expect(ifMatchCheck(undefined, view)).toBeUndefined();
    expect(ifMatchCheck('*', view)).toBeUndefined();
    expect(ifMatchCheck(' * ', view)).toBeUndefined();
  });
});
