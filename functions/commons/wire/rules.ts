import type * as z from 'zod/mini';

/**
 * What a field's value broke, in plain words and without the field's name or the value (the error
 * names both: see ValidationFailed): what is wrong with the value, then the rule it must follow
 * ("is not allowed; use one of: public, private", "is too long (51 characters); use at most 50",
 * "is required: text"). Used as zod's message for every rule the schemas check; rules with their own
 * message keep it, and say it in the same form.
 */
type Issue = z.core.$ZodRawIssue;

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  date: 'a date',
  null: 'null',
};

/** Allowed values as a rule lists them: `public, private`. */
const choices = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

const plural = (n: number | bigint, one: string) => `${n} ${one}${n === 1 || n === 1n ? '' : 's'}`;

/** How long a refused value is, in the unit its rule counts ("51 characters", "101 items"), or undefined. */
function sizeOf(input: unknown, unit: string): string | undefined {
  if (typeof input === 'string') return plural(Array.from(input).length, unit);
  if (Array.isArray(input)) return plural(input.length, unit);
  return undefined;
}

function sized(issue: { origin: string; input?: unknown; exact?: boolean }, bound: number | bigint, side: 'least' | 'most'): string {
  const { origin } = issue;
  const at = issue.exact ? 'exactly' : `at ${side}`;
  const verdict = issue.exact ? 'has the wrong length' : side === 'most' ? 'is too long' : 'is too short';
  if (origin === 'string' || origin === 'array' || origin === 'set') {
    const unit = origin === 'string' ? 'character' : 'item';
    const size = sizeOf(issue.input, unit);
    return `${verdict}${size ? ` (${size})` : ''}; use ${at} ${plural(bound, unit)}`;
  }
  return `is out of range; use a number of ${at} ${bound}`;
}

/** What kind of value a client sent ("is a number", "is a list"), as a rule says it; null is no kind. */
function kindOf(input: unknown): string | undefined {
  if (input === null) return 'is not allowed';
  const kind = KINDS[Array.isArray(input) ? 'array' : typeof input];
  return kind && `is ${kind}`;
}

/** What a value of the wrong kind is: `is a number, not text`. */
function wrongKind(input: unknown, expected: string): string {
  const given = kindOf(input);
  const wanted = KINDS[expected] ?? expected;
  return given === undefined ? `is not ${wanted}` : `${given}, not ${wanted}`;
}

export function plainRule(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `is required: ${KINDS[issue.expected] ?? issue.expected}`;
      return wrongKind(issue.input, issue.expected);
    case 'too_small':
      return sized(issue, issue.minimum, 'least');
    case 'too_big':
      return sized(issue, issue.maximum, 'most');
    case 'invalid_value': {
      const allowed = issue.values.length === 1 ? choices(issue.values) : `one of: ${choices(issue.values)}`;
      return issue.input === undefined ? `is required: ${allowed}` : `is not allowed; use ${allowed}`;
    }
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the form this field takes';
      if (issue.format === 'datetime') return 'is not an ISO 8601 date-time; use one with its offset, e.g. 2026-11-23T10:00:00Z';
      return `is not a valid ${issue.format}`;
    case 'not_multiple_of':
      return `is not a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return 'is not a field of this request; leave it out';
    default:
      return 'is not valid here';
  }
}

/**
 * A schema's own messages for a value missing or of the wrong kind, saying what it takes:
 * `is required: <what>`, `is a number; use <what>` (`what`: "the project's slug, e.g. website-redesign").
 */
export function required(what: string) {
  return {
    error: (issue: Issue) => {
      if (issue.code !== 'invalid_type') return undefined;
      if (issue.input === undefined) return `is required: ${what}`;
      const given = kindOf(issue.input);
      return given === undefined ? undefined : `${given}; use ${what}`;
    },
  };
}
