import fc from 'fast-check';

/**
 * Generators of hostile input for the fuzz and hostile suites: text that is long in bytes but short
 * in characters, invisible, bidirectional, denormalised or ill-formed; cursors edited in every way.
 */

/** Characters chosen for what they do to storage and comparison. */
const NASTY = [
  '\u{1D160}', // 4 bytes in UTF-8, and NFC decomposes it into three 4-byte code points
  '\u{1F600}', // emoji, a surrogate pair in UTF-16
  '\u{20000}', // CJK extension B, 4 bytes
  '\uFDFA', // NFKC expands one character to 18
  '\u0301', // combining acute accent
  '\u200B', // zero-width space (default ignorable)
  '\u200D', // zero-width joiner
  '\uFEFF', // byte order mark
  '\u00AD', // soft hyphen
  '\u202E', // right-to-left override
  '\u2066', // left-to-right isolate
  '\u0085', // C1 control (next line)
  '\u0000',
  '\n',
  '\t',
  '\uD800', // lone high surrogate
  '\uDC00', // lone low surrogate
  'ß',
  'Ｂ', // fullwidth
  'İ', // dotted capital I: lower-cases to two code points
  '\u3000', // ideographic space
  ' ',
  'a',
  'Z',
  '-',
] as const;

const nastyChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)) },
);

/** Text up to 300 characters (often right at the 255-character limit) built from nasty characters. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.array(nastyChar, { minLength: 1, maxLength: 60 }).map((cs) => cs.join('')),
  fc.tuple(fc.constantFrom(...NASTY), fc.integer({ min: 40, max: 300 })).map(([c, n]) => c.repeat(n)),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom(...NASTY), fc.integer({ min: 1, max: 240 }))
    .map(([s, c, n]) => s + c.repeat(n)),
);

/** Ways to edit the decoded key of a real cursor (cursors are base64url JSON `{ f, k }`). */
export const cursorEdit: fc.Arbitrary<(key: Record<string, unknown>) => Record<string, unknown>> = fc.oneof(
  fc
    .constantFrom(...['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'])
    .map((name) => (k: Record<string, unknown>) => ({ ...k, [name]: '' })),
  fc.tuple(fc.constantFrom('PK', 'SK'), fc.string({ maxLength: 40 })).map(([name, v]) => (k: Record<string, unknown>) => ({
    ...k,
    [name]: `${k[name]}${v}`,
  })),
  fc.tuple(fc.constantFrom('PK', 'SK'), fc.jsonValue()).map(([name, v]) => (k: Record<string, unknown>) => ({ ...k, [name]: v })),
  fc.constant((k: Record<string, unknown>) => ({ ...k, extra: 'x' })),
  fc.constant((k: Record<string, unknown>) => Object.fromEntries(Object.entries(k).slice(1))),
  fc.constant((k: Record<string, unknown>) => ({ ...k, SK: `${String(k.SK).slice(0, -1)}\u0000` })),
);

/** The cursor with its key edited and its tag left as it was: what a hand-edited cursor looks like. */
export function editCursor(cursor: string, edit: (key: Record<string, unknown>) => Record<string, unknown>): string {
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { f: string; k: Record<string, unknown> };
  return Buffer.from(JSON.stringify({ f: decoded.f, k: edit(decoded.k) })).toString('base64url');
}
