import { sha256Url } from './digest';
import { builtOnUse } from './patterns';

/**
 * The service's text rules, in one place. Names and titles are NFC-normalised and trimmed; control
 * characters (C0 and C1, tabs and newlines included), bidirectional embeddings, overrides and
 * isolates (the "Trojan Source" characters) and unpaired surrogates are refused; a name made only
 * of invisible characters counts as empty. Uniqueness and search keys fold case fully, with NFKC
 * and without default-ignorable characters, and are bounded in bytes so that every key built
 * from user text fits DynamoDB's limits by construction.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex -- as above, without tab, line feed and carriage return
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;
const INVISIBLE = builtOnUse(String.raw`[\p{Default_Ignorable_Code_Point}\p{White_Space}]`, 'gu');
const IGNORABLE = builtOnUse(String.raw`\p{Default_Ignorable_Code_Point}`, 'gu');

/** The bytes `text` takes in an answer: UTF-8, inside a JSON string (its escapes counted, not its quotes). */
export function jsonByteLength(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** What is wrong with a piece of user text, or undefined; `multiline` allows tabs and line breaks. */
export function textProblem(text: string, multiline = false): string | undefined {
  if (!text.isWellFormed()) return 'must not contain unpaired surrogates';
  if ((multiline ? CONTROL_BUT_LINE_BREAKS : CONTROL).test(text)) return 'must not contain control characters';
  if (BIDI_CONTROL.test(text)) return 'must not contain bidirectional control characters';
  return undefined;
}

/** NFC, trimmed: how names, titles and descriptions are stored. */
export function cleanText(text: string): string {
  return text.normalize('NFC').trim();
}

/** True when nothing visible is left (only spaces and invisible characters). */
export function isBlank(text: string): boolean {
  return text.replace(INVISIBLE(), '') === '';
}

// Created on first use: building a segmenter loads ICU data (12-15 ms here), which no cold start
// should pay for, nor a request whose text is ASCII (see `characters`).
let graphemes: Intl.Segmenter | undefined;

// eslint-disable-next-line no-control-regex -- every ASCII character, controls included
const ASCII = /^[\u0000-\u007f]*$/;

function* characters(text: string): Generator<{ segment: string; weight: number }> {
  if (ASCII.test(text)) {
    // In ASCII every character is one grapheme cluster but CR LF, which is one (UAX #29, rule GB3):
    // the same segments the segmenter gives, without loading it.
    for (let i = 0; i < text.length; i++) {
      const crlf = text[i] === '\r' && text[i + 1] === '\n';
      yield { segment: crlf ? '\r\n' : text[i]!, weight: 1 };
      if (crlf) i++;
    }
    return;
  }
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // A character longer than eight UTF-16 units (stacked combining marks) counts as one per eight, rounded up.
  for (const { segment } of graphemes.segment(text)) yield { segment, weight: Math.max(1, Math.ceil(segment.length / 8)) };
}

/** Length in characters as a reader counts them (grapheme clusters), which normalisation does not change. */
export function charCount(text: string): number {
  let n = 0;
  for (const { weight } of characters(text)) n += weight;
  return n;
}

/**
 * Code points in `text`: at least as many as its characters, since a character weighs at most its code
 * points (one, or one per eight UTF-16 units of a cluster, and a code point takes at most two).
 */
function codePointCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      n--;
      i++;
    }
  }
  return n;
}

/**
 * `charCount(text)` when it is outside `min` to `max` (for the refusal to name), undefined when it is
 * within, without segmenting when bounds that cost a pass over the string settle it. Segmenting runs at
 * about 4 µs a character (40 ms for a description of 10,000 characters beyond ASCII); the bounds take
 * microseconds. At least: one per eight UTF-16 units, and one if any (every character weighs at least
 * that). At most: the code points.
 */
export function charCountOutside(text: string, min: number, max: number): number | undefined {
  const atLeast = text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 8));
  if (atLeast >= min && (text.length <= max || codePointCount(text) <= max)) return undefined;
  const n = charCount(text);
  return n >= min && n <= max ? undefined : n;
}

/** The longest start of `text` of at most `max` characters, cut between characters (never inside one). */
export function cutToChars(text: string, max: number): string {
  if (codePointCount(text) <= max) return text;
  let n = 0;
  let out = '';
  for (const { segment, weight } of characters(text)) {
    if (n + weight > max) break;
    n += weight;
    out += segment;
  }
  return out;
}

/**
 * The comparison form of a name or title: NFKC, full case folding (upper then lower case, so `ß`
 * and `SS` meet), default-ignorable characters removed, trimmed. `Bug`, `ｂｕｇ` and `B\u200Bug` are one.
 */
export function foldKey(text: string): string {
  return text.normalize('NFKC').replace(IGNORABLE(), '').toUpperCase().toLowerCase().normalize('NFKC').trim();
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest start of `text` (whole code points) that fits in `maxBytes` of UTF-8. */
function cutToBytes(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const b = byteLength(ch);
    if (bytes + b > maxBytes) break;
    out += ch;
    bytes += b;
  }
  return out;
}

/**
 * A unique key of at most `maxBytes`: the text itself when it fits, otherwise its start and a
 * hash of the whole (so distinct texts keep distinct keys).
 */
function boundedKey(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  const hash = sha256Url(text).slice(0, 22);
  return `${cutToBytes(text, maxBytes - hash.length - 1)}#${hash}`;
}

/** Bytes of UTF-8 a key built from user text may take (DynamoDB allows 1,024 for a sort key). */
const KEY_TEXT_BYTES = 512;

/** The key a label title is unique by (its title guard): folded, bounded, distinct for distinct folds. */
export function titleKey(title: string): string {
  return boundedKey(foldKey(title), KEY_TEXT_BYTES);
}

/**
 * The name-index sort key of a project name: its folded form, cut to the key budget. Two names that
 * differ only past the cut share a key (index keys need not be unique); a search longer than the
 * cut filters on the full name (see findProjectsByName).
 */
export function nameKey(name: string): string {
  return cutToBytes(foldKey(name), KEY_TEXT_BYTES);
}
