import { quoted } from '#domain/quoted';

/**
 * Where a JSON text stops being JSON (RFC 8259, as JSON.parse reads it), for a 400 that says so: one
 * pass over the characters with a stack of the open containers, no recursion (a body of thousands of
 * `[` costs what a short one does), run only once JSON.parse has refused the text. Line and column
 * count from 1, the column in characters (code points); `offset` counts UTF-16 code units from 0.
 */
export interface JsonSyntaxError {
  line: number;
  column: number;
  offset: number;
  /** The character found there, quoted; undefined where the text ended. */
  found: string | undefined;
  /** What JSON wants there, in words. */
  expected: string;
}

type Want = 'value' | 'value or ]' | 'name' | 'name or }' | ':' | 'next';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const DIGIT = /[0-9]/;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /[0-9a-fA-F]/;

const WORDS: Record<Exclude<Want, 'next'>, string> = {
  value: 'a value',
  'value or ]': 'a value or ]',
  name: 'a member name in double quotes',
  'name or }': 'a member name in double quotes or }',
  ':': 'a colon (:)',
};

/** The first place `text` breaks JSON's grammar; undefined when it is JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const open: string[] = [];
  let want: Want = 'value';
  let i = 0;
  const fail = (at: number, expected: string): JsonSyntaxError => place(text, at, expected);
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
    const c = text[i];
    if (want === 'next') {
      const closer = open.at(-1) === '{' ? '}' : ']';
      if (open.length === 0) return c === undefined ? undefined : fail(i, 'the end of the body');
      if (c === ',') want = closer === '}' ? 'name' : 'value';
      else if (c === closer) open.pop();
      else return fail(i, `a comma or ${closer}`);
      i++;
    } else if (want === ':') {
      if (c !== ':') return fail(i, 'a colon (:)');
      want = 'value';
      i++;
    } else if (want === 'name' || want === 'name or }') {
      if (c === '}' && want === 'name or }') {
        open.pop();
        want = 'next';
        i++;
      } else if (c === '"') {
        const end = stringEnd(text, i);
        if (typeof end !== 'number') return end;
        want = ':';
        i = end;
      } else return fail(i, WORDS[want]);
    } else if (c === ']' && want === 'value or ]') {
      open.pop();
      want = 'next';
      i++;
    } else if (c === '{' || c === '[') {
      open.push(c);
      want = c === '{' ? 'name or }' : 'value or ]';
      i++;
    } else {
      const end = c === undefined ? fail(i, WORDS[want]) : valueEnd(text, i, WORDS[want]);
      if (typeof end !== 'number') return end;
      want = 'next';
      i = end;
    }
  }
}

/** The end of the string, number or literal at `i`, or where it breaks. */
function valueEnd(text: string, i: number, expected: string): number | JsonSyntaxError {
  const c = text[i]!;
  if (c === '"') return stringEnd(text, i);
  if (c === '-' || DIGIT.test(c)) return numberEnd(text, i);
  for (const literal of ['true', 'false', 'null']) {
    if (c !== literal[0]) continue;
    for (let k = 1; k < literal.length; k++) if (text[i + k] !== literal[k]) return place(text, i + k, `the rest of ${literal}`);
    return i + literal.length;
  }
  return place(text, i, expected);
}

function stringEnd(text: string, start: number): number | JsonSyntaxError {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c.charCodeAt(0) < 0x20) return place(text, i, 'a control character written escaped inside a string (\\n, \\t, \\u0001, ...)');
    if (c !== '\\') continue;
    const e = text[++i];
    if (e === 'u') {
      for (let k = 1; k <= 4; k++) if (!HEX.test(text[i + k] ?? '')) return place(text, i + k, 'a hexadecimal digit of a \\u escape');
      i += 4;
    } else if (e === undefined || !ESCAPES.has(e))
      return place(text, i, 'an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hexadecimal digits');
  }
  return place(text, text.length, 'the string\'s closing "');
}

function numberEnd(text: string, start: number): number | JsonSyntaxError {
  let i = start;
  const digits = (what: string): number | JsonSyntaxError => {
    if (!DIGIT.test(text[i] ?? '')) return place(text, i, what);
    while (DIGIT.test(text[i] ?? '')) i++;
    return i;
  };
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else {
    const end = digits('a digit');
    if (typeof end !== 'number') return end;
  }
  if (text[i] === '.') {
    i++;
    const end = digits('a digit after the decimal point');
    if (typeof end !== 'number') return end;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    const end = digits('a digit of the exponent');
    if (typeof end !== 'number') return end;
  }
  return i;
}

function place(text: string, offset: number, expected: string): JsonSyntaxError {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) line++;
  const column = Array.from(text.slice(lineStart, offset)).length + 1;
  const char = offset < text.length ? String.fromCodePoint(text.codePointAt(offset)!) : undefined;
  return { line, column, offset, found: char === undefined ? undefined : quoted(char), expected };
}

/** The 400's detail for a body that is not JSON: where it breaks and what was wanted there. */
export function malformedJsonDetail(text: string): string {
  const error = jsonSyntaxError(text);
  if (!error) return 'The body is not valid JSON.';
  const what = error.found === undefined ? 'the body ends' : `found ${error.found}`;
  return `The body is not valid JSON at line ${error.line}, column ${error.column}: ${what} where JSON wants ${error.expected}.`;
}
