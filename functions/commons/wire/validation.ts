import * as z from 'zod/mini';
import { ValidationFailed, type Refusal } from '#domain/errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_DEPTH, MAX_PAGE_SIZE } from '#domain/limits';
import { SLUG } from '#domain/slugs';
import { charCountOutside, cleanText, isBlank, jsonByteLength, textProblem } from '#domain/text';
import { quoted } from '#domain/quoted';
import { plainRule, required } from './rules';

// zod/mini carries no messages of its own: every rule is said in the service's words (rules.ts).
z.config({ localeError: plainRule });

/** A field's path as a client spells it: `task_uuids[3]`, `settings.task_prefix` (without path/query/body). */
function fieldOf(path: PropertyKey[]): string {
  const parts = path.length > 1 ? path.slice(1) : path;
  return parts.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

/**
 * The value an issue refuses, as the client sent it: the member at the issue's path in the raw
 * request (`"  Web\u0000"` before trimming, `"0"` before it became a number), or, where a path runs
 * into a value a schema took apart (`categories=a,B`: `categories[1]`), the part the rule saw.
 */
function refusedValue(raw: unknown, path: PropertyKey[], input: unknown): unknown {
  let at = raw;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return input;
    if (!Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** Validates `{ path, query, body }` against a route's schema; every offending field is reported with the value it refuses. */
export function parseInput<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw, { reportInput: true });
  if (result.success) return result.data;
  const errors: Refusal[] = result.error.issues.map((issue) => {
    // An unknown member is reported by its own name.
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    // A rule across fields may name the value it refuses itself (`params.value`), when its path cannot.
    const named = issue.code === 'custom' && issue.params !== undefined && 'value' in issue.params;
    return { field: fieldOf(path), message: issue.message, value: named ? issue.params!.value : refusedValue(raw, path, issue.input) };
  });
  throw new ValidationFailed(errors);
}

const SLUG_RULE = '1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen';

/** `company_slug` from the query string, or from the body where the interface puts it; both and different: 422. */
export function workspaceSlug(fromQuery: unknown, fromBody: unknown): string {
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    const rule = `in the body differs from ${quoted(fromQuery)} in the query string; send it in one place, or the same in both`;
    throw ValidationFailed.of('company_slug', rule, fromBody);
  }
  const value = fromQuery ?? fromBody;
  if (value === undefined) throw ValidationFailed.of('company_slug', "is required: the workspace's slug, e.g. acme-corp");
  if (typeof value !== 'string' || !SLUG.test(value)) {
    throw ValidationFailed.of('company_slug', `is not a workspace slug; use ${SLUG_RULE}, e.g. acme-corp`, value);
  }
  return value;
}

/**
 * User text under the service's text rules (domain/text.ts): NFC-normalised and trimmed; control
 * characters, bidirectional controls and unpaired surrogates refused; only invisible characters
 * counts as empty; length counted in characters as a reader counts them (grapheme clusters).
 */
function userText(min: number, max: number, maxBytes: number, multiline: boolean) {
  const range = min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`;
  // Judged where the text is cleaned: three zod schemas, where a second string with a refinement made seven (each built
  // at a cold start, by every route that takes a text). Its issue goes on as a refinement's did (`continue`): the object's
  // rules across fields still run, and name what they find too.
  return z.pipe(
    z.string(required(`text of ${range}`)),
    z.transform((raw: string, ctx) => {
      const s = cleanText(raw);
      // Counted only as far as needed: undefined when within the bounds.
      const length = charCountOutside(s, min, max);
      const problem =
        textProblem(s, multiline) ??
        (min > 0 && isBlank(s) ? `must not be empty or invisible characters only; use ${range}` : undefined) ??
        (length !== undefined && length < min ? `is too short (${length} characters); use ${range}` : undefined) ??
        (length !== undefined && length > max ? `is too long (${length} characters); use ${range}` : undefined) ??
        tooManyBytes(s, maxBytes);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: s, continue: true });
      return s;
    }),
  );
}

/** A text within its characters but over its bytes (long clusters of combining marks, many escapes): what is wrong, or undefined. */
function tooManyBytes(s: string, maxBytes: number): string | undefined {
  // Only a text that could be over is measured: a string of n UTF-16 units is at most 3n UTF-8 bytes, 6n escaped.
  if (s.length * 6 <= maxBytes) return undefined;
  const bytes = jsonByteLength(s);
  return bytes > maxBytes
    ? `is too large (${bytes} bytes as UTF-8 in JSON, where quotes, backslashes, tabs and line breaks take two); use at most ${maxBytes} bytes`
    : undefined;
}

/** A single-line name or title: no tabs or line breaks either. */
export function name(min: number, max: number, maxBytes: number) {
  return userText(min, max, maxBytes, false);
}

/** Free text such as a description: tabs and line breaks allowed. */
export function text(min: number, max: number, maxBytes: number) {
  return userText(min, max, maxBytes, true);
}

/** A slug in the path or the query; `what` says which, for a request that leaves it out. */
const slugOf = (what: string) =>
  z.string(required(`${what}, e.g. website-redesign`)).check(z.regex(SLUG, `is not a slug; use ${SLUG_RULE}`));
export const slugParam = /* @__PURE__ */ slugOf('a slug');
export const projectSlugParam = /* @__PURE__ */ slugOf("the project's slug");

const TASK_RULE = '1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit';
/** A task id as the rest of the product makes them. */
export const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const taskId = () => z.string(required(`a task id of ${TASK_RULE}`)).check(z.regex(TASK_ID, `is not a task id; use ${TASK_RULE}`));
export const taskUuid = /* @__PURE__ */ taskId();

/**
 * A whole number from 1 to `max` in the query string, judged where its digits become a number: four zod schemas, where
 * a number schema with its two checks made eleven (a paging route builds two at its cold start).
 */
const positiveInt = (max: number) =>
  z.optional(
    z.pipe(
      z.string(),
      z.transform((digits: string, ctx) => {
        const n = /^\d{1,6}$/.test(digits) ? Number(digits) : undefined;
        if (n !== undefined && n >= 1 && n <= max) return n;
        if (n !== undefined) {
          ctx.issues.push({ code: 'custom', message: `is out of range; use an integer from 1 to ${max}`, input: n });
          return z.NEVER;
        }
        // Not digits goes on, as the pattern check it replaces did: the rules across fields still run, and name it as sent.
        ctx.issues.push({
          code: 'custom',
          message: `is not a whole number; use an integer from 1 to ${max}`,
          input: digits,
          continue: true,
        });
        return digits as never; // never a handler's: the parse fails
      }),
    ),
  );

/** `limit` and `per_page`, one schema (a schema is immutable: two fields may share it), for a route that takes no cursor. */
export function pageSizeFields() {
  const size = positiveInt(MAX_PAGE_SIZE);
  return { limit: size, per_page: size };
}

const NOT_A_CURSOR = 'is not a cursor returned by this query; pass meta.next_cursor as it came, or leave cursor out for the first page';

/**
 * `limit` (1-100, default 50; `per_page` is an alias), `cursor` and `page` (1-based, for GitScrum
 * clients), as every list route takes them; `pagingRules` checks how they combine. Built by the
 * routes that page, when they load: the others never pay for their schemas at a cold start.
 */
export function paginationFields() {
  return {
    ...pageSizeFields(),
    cursor: z.optional(z.string().check(z.minLength(1, NOT_A_CURSOR), z.maxLength(2048, NOT_A_CURSOR))),
    page: positiveInt(MAX_PAGE_DEPTH),
  };
}

type Paging = { limit?: number | undefined; per_page?: number | undefined; cursor?: string | undefined; page?: number | undefined };

/** `limit` and `per_page` agree; `page` is not combined with `cursor` and stays within MAX_PAGE_DEPTH items. */
export const pagingRules = () => z.superRefine<Paging>(checkPaging);

function checkPaging(q: Paging, ctx: z.core.$RefinementCtx<Paging>): void {
  if (q.limit !== undefined && q.per_page !== undefined && q.limit !== q.per_page) {
    const message = `differs from limit (${q.limit}); send one of them, or the same number in both`;
    ctx.addIssue({ code: 'custom', message, path: ['per_page'], input: q.per_page });
  }
  if (q.page !== undefined && q.cursor !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'cannot be combined with cursor; follow meta.next_cursor alone',
      path: ['page'],
      input: q.page,
    });
  }
  if (q.page !== undefined && q.page * pageSize(q) > MAX_PAGE_DEPTH) {
    const message = `reaches past item ${MAX_PAGE_DEPTH} (page x per_page = ${q.page * pageSize(q)}); page further with the cursor (meta.next_cursor)`;
    ctx.addIssue({ code: 'custom', message, path: ['page'], input: q.page });
  }
}

function pageSize(q: Paging): number {
  return q.limit ?? q.per_page ?? DEFAULT_PAGE_SIZE;
}

/** The page a list query asks for. */
export function pageRequest(q: Paging) {
  return { limit: pageSize(q), cursor: q.cursor, page: q.page };
}

/** A list's `meta`: `limit` and `next_cursor`, and with a page number `current_page` and `per_page`. */
export function pageMeta(req: ReturnType<typeof pageRequest>, nextCursor: string | null) {
  return { limit: req.limit, next_cursor: nextCursor, ...(req.page !== undefined ? { current_page: req.page, per_page: req.limit } : {}) };
}

/** RFC 3339 (a time zone required), as the instant it names in UTC, to the millisecond (how the history's keys spell it). */
export const rfc3339Time = /* @__PURE__ */ rfc3339();

function rfc3339() {
  return z.pipe(
    z.string(required('a time in RFC 3339, e.g. 2026-11-27T09:30:00Z')),
    z.transform((s: string, ctx) => {
      if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)))
        return new Date(s).toISOString();
      // It goes on, as the refinement it replaces did: the rules across fields still run, and compare it as sent.
      ctx.issues.push({ code: 'custom', message: 'is not an RFC 3339 time; use e.g. 2026-11-27T09:30:00Z', input: s, continue: true });
      return s;
    }),
  );
}
