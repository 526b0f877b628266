import { describe, expect, test } from 'vitest';
import { jsonSyntaxError, malformedJsonDetail } from '#wire/jsonSyntax';

/** A body that is not JSON is answered where it breaks (issue 68, finding 10): line, column and what JSON wants there. */
describe('where a JSON text breaks', () => {
  test.each([
    ['{"title":"Bug",\n "color": FF0000}', 'at line 2, column 11: found "F" where JSON wants a value.'],
    ['{"a":1,}', 'at line 1, column 8: found "}" where JSON wants a member name in double quotes.'],
    ['{"a":\n tru}', 'at line 2, column 5: found "}" where JSON wants the rest of true.'],
    ['{"a":"b"', 'at line 1, column 9: the body ends where JSON wants a comma or }.'],
    ['[1 2]', 'at line 1, column 4: found "2" where JSON wants a comma or ].'],
    ['{"a" 1}', 'at line 1, column 6: found "1" where JSON wants a colon (:).'],
    ["{'a':1}", `at line 1, column 2: found "'" where JSON wants a member name in double quotes or }.`],
    ['{"a":1} x', 'at line 1, column 9: found "x" where JSON wants the end of the body.'],
    ['"a\u0001"', 'at line 1, column 3: found "\\u0001" where JSON wants a control character written escaped'],
    ['"\\x"', 'at line 1, column 3: found "x" where JSON wants an escape'],
    ['1.', 'at line 1, column 3: the body ends where JSON wants a digit after the decimal point.'],
    ['\uFEFF{}', 'at line 1, column 1: found "\\uFEFF" where JSON wants a value.'],
    // Columns count characters, not UTF-16 code units: an emoji is one.
    ['{"é":"😀" x}', 'at line 1, column 10: found "x" where JSON wants a comma or }.'],
  ])('%j', (text, said) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(malformedJsonDetail(text)).toContain(`The body is not valid JSON ${said}`);
  });

  test('it agrees with JSON.parse on which texts are JSON, over a few thousand one-character changes of one', () => {
    const json = JSON.stringify({ a: [1, -2.5e3, true, false, null], 'b\n': { c: 'x\u00e9\\"', d: [] }, e: {} }, null, 1);
    const alphabet = [...'{}[],:"\\ \n0123456789-+.eEtrufalsn\u0001x'];
    let checked = 0;
    for (let i = 0; i < json.length; i++) {
      for (const c of alphabet) {
        for (const text of [
          json.slice(0, i) + c + json.slice(i + 1),
          json.slice(0, i) + c + json.slice(i),
          json.slice(0, i) + json.slice(i + 1),
        ]) {
          let parses = true;
          try {
            JSON.parse(text);
          } catch {
            parses = false;
          }
          expect(jsonSyntaxError(text) === undefined, JSON.stringify(text)).toBe(parses);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(3_000);
  });

  test('a body of 100,000 open brackets is placed at its end in one pass, without recursion', () => {
    expect(jsonSyntaxError('['.repeat(100_000))).toMatchObject({ line: 1, column: 100_001, found: undefined, expected: 'a value or ]' });
  });
});
