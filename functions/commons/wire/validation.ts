import * as z from 'zod/mini';
import { ValidationFailed } from '#domain/errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#domain/limits';
import { SLUG } from '#domain/slugs';
import type { FieldError } from '#domain/errors';
import { charCount, cleanText, isBlank, textProblem } from '#domain/text';
import { plainRule } from './rules';

// zod/mini carries no messages of its own: every rule is said in the service's words (rules.ts).
z.config({ localeError: plainRule });

/** A field's path as a client spells it: `task_uuids[3]`, `settings.task_prefix` (without path/query/body). */
function fieldOf(path: PropertyKey[]): string {
  const parts = path.length > 1 ? path.slice(1) : path;
  return parts.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

/** Validates `{ path, query, body }` against a route's schema; every offending field is reported. */
export function parseInput<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => {
    // An unknown member is reported by its own name.
    if (issue.code === 'unrecognized_keys') return { field: fieldOf([...issue.path, issue.keys[0]!]), message: issue.message };
    return { field: fieldOf(issue.path), message: issue.message };
  });
  throw new ValidationFailed(errors);
}

/** `company_slug` from the query string, or from the body where the interface puts it; both and different: 422. */
export function workspaceSlug(fromQuery: unknown, fromBody: unknown): string {
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw ValidationFailed.of('company_slug', 'differs between the query string and the body');
  }
  const value = fromQuery ?? fromBody;
  if (value === undefined || value === '') throw ValidationFailed.of('company_slug', 'is required');
  if (typeof value !== 'string' || !SLUG.test(value)) {
    throw ValidationFailed.of('company_slug', 'must be a workspace slug (lowercase letters, digits and hyphens)');
  }
  return value;
}

/**
 * User text under the service's text rules (domain/text.ts): NFC-normalised and trimmed; control
 * characters, bidirectional controls and unpaired surrogates refused; only invisible characters
 * counts as empty; length counted in characters as a reader counts them (grapheme clusters).
 */
function userText(min: number, max: number, multiline: boolean) {
  return z.pipe(
    z.pipe(z.string(), z.transform(cleanText)),
    z.string().check(
      z.superRefine((s: string, ctx) => {
        const length = charCount(s);
        const problem =
          textProblem(s, multiline) ??
          (min > 0 && isBlank(s) ? 'must not be empty' : undefined) ??
          (length < min ? `must have at least ${min} characters` : undefined) ??
          (length > max ? `must have at most ${max} characters` : undefined);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, input: s });
      }),
    ),
  );
}

/** A single-line name or title: no tabs or line breaks either. */
export function name(min: number, max: number) {
  return userText(min, max, false);
}

/** Free text such as a description: tabs and line breaks allowed. */
export function text(min: number, max: number) {
  return userText(min, max, true);
}

export const slugParam = z.string().check(z.regex(SLUG, 'is not a valid slug'));

export const taskUuid = z
  .string()
  .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", ":" or "-"'));

/** Deepest a page number may reach (page x per_page): further, cursors are the way (they cost one page each). */
const MAX_PAGE_DEPTH = 10_000;

const positiveInt = (max: number) =>
  z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,6}$/, `must be an integer from 1 to ${max}`)), z.transform(Number)),
      z.number().check(z.gte(1, 'must be at least 1'), z.lte(max, `must be at most ${max}`)),
    ),
  );

/**
 * `limit` (1-100, default 50; `per_page` is an alias), `cursor` and `page` (1-based, for GitScrum
 * clients), as every list route takes them; `pagingRules` checks how they combine. Built by the
 * routes that page, when they load: the others never pay for some thirty schemas at a cold start.
 */
export function paginationFields() {
  return {
    limit: positiveInt(MAX_PAGE_SIZE),
    per_page: positiveInt(MAX_PAGE_SIZE),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048, 'is not a valid cursor'))),
    page: positiveInt(MAX_PAGE_DEPTH),
  };
}

type Paging = { limit?: number | undefined; per_page?: number | undefined; cursor?: string | undefined; page?: number | undefined };

/** `limit` and `per_page` agree; `page` is not combined with `cursor` and stays within MAX_PAGE_DEPTH items. */
export const pagingRules = () => z.superRefine<Paging>(checkPaging);

function checkPaging(q: Paging, ctx: z.core.$RefinementCtx<Paging>): void {
  if (q.limit !== undefined && q.per_page !== undefined && q.limit !== q.per_page) {
    ctx.addIssue({ code: 'custom', message: 'must equal limit when both are given', path: ['per_page'], input: q.per_page });
  }
  if (q.page !== undefined && q.cursor !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'cannot be combined with cursor: follow meta.next_cursor instead',
      path: ['page'],
      input: q.page,
    });
  }
  if (q.page !== undefined && q.page * pageSize(q) > MAX_PAGE_DEPTH) {
    ctx.addIssue({
      code: 'custom',
      message: `page x per_page must be at most ${MAX_PAGE_DEPTH}: page further with the cursor (meta.next_cursor)`,
      path: ['page'],
      input: q.page,
    });
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
