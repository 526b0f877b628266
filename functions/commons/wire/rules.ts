import type * as z from 'zod/mini';

/**
 * What a field's value broke, in plain words and without the field's name (the error names it: see
 * ValidationFailed): "is required", "must have at most 50 characters", "must be one of: a, b". Used
 * as zod's message for every rule the schemas check; rules with their own message keep it.
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

const list = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

function sized(origin: string, bound: number | bigint, side: 'least' | 'most', exact?: boolean): string {
  const at = exact ? 'exactly' : `at ${side}`;
  if (origin === 'string') return `must have ${at} ${bound} character${bound === 1 ? '' : 's'}`;
  if (origin === 'array' || origin === 'set') return `must list ${at} ${bound} item${bound === 1 ? '' : 's'}`;
  return `must be ${at} ${bound}`;
}

export function plainRule(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return sized(issue.origin, issue.minimum, 'least', issue.exact);
    case 'too_big':
      return sized(issue.origin, issue.maximum, 'most', issue.exact);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${list(issue.values)}` : `must be one of: ${list(issue.values)}`;
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the expected form';
      return `must be ${issue.format === 'datetime' ? 'an ISO 8601 date-time' : `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `is not a field of this request (${list(issue.keys)})`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
      return 'is not valid';
    default:
      return 'is not valid';
  }
}
