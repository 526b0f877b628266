import { builtOnUse } from './patterns';

/**
 * A refused value as a message names it: safe to print whatever it holds, short whatever its size.
 * Text is quoted (`"secret"`), numbers, true, false and null are written as JSON writes them, lists
 * and objects as their compact JSON. Control, format and separator characters (NUL, the bidirectional
 * overrides, zero-width spaces, ...) and unpaired surrogates are written as JSON escapes (`\u202E`),
 * never as themselves, so a quoted text parses back as JSON; a value longer than QUOTED_CHARS
 * characters is cut between characters (a 4-byte emoji or a combining sequence is never split) and
 * ends with `…`.
 */

/** The most characters of a value a message shows (escapes included), before its `…`. */
export const QUOTED_CHARS = 40;

/** Raw JSON text, named as it was sent (not quoted): the start of a body too deep to parse, say. */
export class JsonText {
  constructor(readonly text: string) {}
}

// Controls, unpaired surrogates, separators and spaces other than U+0020, and format characters
// (zero-width joiners inside a character, as emoji are written with, excepted: see `escaped`).
const UNSAFE = builtOnUse(String.raw`[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]|(?! )\p{Zs}`, 'u');
const JOINER = /^[\u200c\u200d]$/;
// Code units read at most to find QUOTED_CHARS characters: a 10 MB value costs what a short one does.
const SCANNED = 1024;

let graphemes: Intl.Segmenter | undefined;

// eslint-disable-next-line no-control-regex -- every ASCII character, controls included
const ASCII = /^[\u0000-\u007f]*$/;

function segmentsOf(text: string): Iterable<string> {
  // In ASCII a character is a grapheme (CR LF aside, and both are escaped): no segmenter to load.
  if (ASCII.test(text)) return text;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

function escaped(codePoint: string, quotes: boolean, joins: boolean): string {
  if (quotes && (codePoint === '"' || codePoint === '\\')) return `\\${codePoint}`;
  if (!UNSAFE().test(codePoint) || (joins && JOINER.test(codePoint))) return codePoint;
  // JSON's escapes (a surrogate pair for a code point past U+FFFF): a quoted value parses back as JSON.
  let out = '';
  for (let i = 0; i < codePoint.length; i++) out += `\\u${codePoint.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

/** A character (grapheme) as written: a joiner stays itself only between two code points it joins. */
function written(segment: string, quotes: boolean): string[] {
  const points = Array.from(segment);
  return points.map((c, i) => escaped(c, quotes, i > 0 && i < points.length - 1));
}

/** The start of `text` in at most QUOTED_CHARS characters as written, `…` when something is left out. */
function excerpt(text: string, quotes: boolean): string {
  let out = '';
  let width = 0;
  let consumed = 0;
  for (const segment of segmentsOf(text.slice(0, SCANNED))) {
    const parts = written(segment, quotes);
    const shown = parts.join('');
    const w = Array.from(shown).length;
    if (width + w > QUOTED_CHARS) {
      // A single character longer than the whole budget (stacked marks): its first code points.
      if (width === 0) {
        for (const part of parts) {
          const pw = Array.from(part).length;
          if (width + pw > QUOTED_CHARS) break;
          out += part;
          width += pw;
        }
      }
      break;
    }
    out += shown;
    width += w;
    consumed += segment.length;
  }
  return consumed < text.length ? `${out}…` : out;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `value` as a message shows it: `"secret"`, `0`, `null`, `["t1",7]`, `"xxxxxxxx…"`. */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return `"${excerpt(value, true)}"`;
  if (value instanceof JsonText) return excerpt(value.text, false);
  if (value !== null && typeof value === 'object') return excerpt(json(value), false);
  return excerpt(String(value), false);
}
