import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { charCount, charCountOutside, cutToChars } from '#domain/text';

/** What the rules say, from the segmenter itself: a cluster of more than eight UTF-16 units counts as several. */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const reference = (text: string) =>
  [...segmenter.segment(text)].map(({ segment }) => ({ segment, weight: Math.max(1, Math.ceil(segment.length / 8)) }));
const refCount = (text: string) => reference(text).reduce((n, c) => n + c.weight, 0);
function refCut(text: string, max: number): string {
  let n = 0;
  let out = '';
  for (const { segment, weight } of reference(text)) {
    if (n + weight > max) break;
    n += weight;
    out += segment;
  }
  return out;
}

/** ASCII with line breaks crowded in, so that CR LF pairs, lone CRs and LF CR orders all occur. */
const asciiText = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 200 }),
  fc.string({ unit: fc.constantFrom('\r', '\n', 'a', ' ', '\t', '\u0000', '~'), maxLength: 60 }),
);
/** Mixed text: ASCII next to 4-byte, combining and invisible characters (the segmenter's path). */
const mixedText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\r', '\n', 'a', '\u0301', '\u200d', '\u{1F469}', '\u{1F1EB}', '\u00e9', '\ufe0f'),
    fc.string({ unit: 'grapheme', maxLength: 1 }),
  ),
  maxLength: 40,
});

/** Counts and cuts of `text` (at `max` characters) agree with the segmenter's. */
function agreesWithSegmenter(text: string, max: number): void {
  expect(charCount(text)).toBe(refCount(text));
  expect(cutToChars(text, max)).toBe(refCut(text, max));
}

describe('character counts', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  test('ASCII text counts and cuts exactly as the segmenter does', () => {
    fc.assert(fc.property(asciiText, fc.nat(220), agreesWithSegmenter), { numRuns: 2000 });
    expect(charCount('a\r\nb')).toBe(3);
    expect(charCount('\n\r')).toBe(2);
    expect(cutToChars('ab\r\ncd', 3)).toBe('ab\r\n');
  });

  test('any other text too', () => {
    fc.assert(fc.property(mixedText, fc.nat(50), agreesWithSegmenter), { numRuns: 1000 });
  });

  test('charCountOutside is the count exactly when it is outside the bounds, near them too', () => {
    /** Runs of one character repeated, so that lengths land on either side of the bounds. */
    const runs = fc
      .tuple(fc.constantFrom('a', '\u{1D504}', 'e\u0301', '\u{1F469}\u200d\u{1F4BB}', '\u0301'.repeat(9), '\r\n'), fc.nat(30))
      .map(([unit, n]) => unit.repeat(n));
    const within = (text: string, min: number, max: number) => {
      const n = refCount(text);
      expect(charCountOutside(text, min, max)).toBe(n >= min && n <= max ? undefined : n);
    };
    fc.assert(fc.property(fc.oneof(mixedText, asciiText, runs), fc.nat(60), fc.nat(60), within), { numRuns: 3000 });
    // One cluster of 1,001 code points weighs one per eight UTF-16 units: 126, the lower bound itself.
    const stack = `e${'\u0301'.repeat(1000)}`;
    expect([refCount(stack), charCountOutside(stack, 126, 126), charCountOutside(stack, 1, 125)]).toEqual([126, undefined, 126]);
  });

  test('ASCII text never loads the segmenter; other text does', async () => {
    const made: unknown[] = [];
    vi.stubGlobal(
      'Intl',
      new Proxy(Intl, {
        get: (target, key) =>
          key === 'Segmenter'
            ? class {
                constructor() {
                  made.push(1);
                  throw new Error('segmenter loaded');
                }
              }
            : Reflect.get(target, key),
      }),
    );
    vi.resetModules();
    const fresh = await import('#domain/text');
    expect(fresh.charCount('Sprint 12 \u2013'.slice(0, 9))).toBe(9);
    expect(fresh.cutToChars('Roadmap\r\nQ3', 8)).toBe('Roadmap\r\n');
    expect(made).toHaveLength(0);
    // Nor does text the cheap bounds settle: a description of 10,000 four-byte characters, a cut that keeps it all.
    expect(fresh.charCountOutside('\u{1D504}'.repeat(10_000), 0, 10_000)).toBeUndefined();
    expect(fresh.charCountOutside('caf\u00e9', 1, 4)).toBeUndefined();
    expect(fresh.cutToChars('caf\u00e9', 4)).toBe('caf\u00e9');
    expect(made).toHaveLength(0);
    expect(() => fresh.charCount('caf\u00e9')).toThrow('segmenter loaded');
    expect(made).toHaveLength(1);
  });
});
