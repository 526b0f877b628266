import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { ValidationFailed } from '#domain/errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#domain/limits';
import type { FieldError } from '#domain/problems';

// zod/mini carries no messages of its own: load the English ones the full zod would give.
z.config(en());

/** Validates `{ path, query, body }` against a route's schema; every offending field is reported. */
export function parseInput<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.slice(1).map(String).join('.') || String(issue.path[0] ?? ''),
    message: issue.message,
  }));
  throw new ValidationFailed(errors);
}

const WORKSPACE_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** `company_slug` from the query string, or from the body where the spec puts it; both and different: 422. */
export function workspaceSlug(fromQuery: unknown, fromBody: unknown): string {
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw ValidationFailed.of('company_slug', 'differs between the query string and the body');
  }
  const value = fromQuery ?? fromBody;
  if (value === undefined || value === '') throw ValidationFailed.of('company_slug', 'is required');
  if (typeof value !== 'string' || !WORKSPACE_SLUG.test(value)) {
    throw ValidationFailed.of('company_slug', 'must be a workspace slug (lowercase letters, digits and hyphens)');
  }
  return value;
}

/** A trimmed string of bounded length, rejecting control characters. */
export function text(min: number, max: number) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((s: string) => s.trim()),
    ),
    z.string().check(
      z.minLength(min, min === 1 ? 'must not be empty' : `must have at least ${min} characters`),
      z.maxLength(max, `must have at most ${max} characters`),
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      z.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'must not contain control characters'),
    ),
  );
}

export const slugParam = z.string().check(z.regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'is not a valid slug'));

export const taskUuid = z
  .string()
  .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", ":" or "-"'));

/** `limit` (1-100, default 50; `per_page` is an alias) and `cursor`, as every list route takes them. */
const pageSizeParam = () =>
  z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,6}$/, `must be an integer from 1 to ${MAX_PAGE_SIZE}`)), z.transform(Number)),
      z.number().check(z.gte(1, 'must be at least 1'), z.lte(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)),
    ),
  );

export const pagination = {
  limit: pageSizeParam(),
  per_page: pageSizeParam(),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048, 'is not a valid cursor'))),
};

export function pageSize(q: { limit?: number | undefined; per_page?: number | undefined }): number {
  return q.limit ?? q.per_page ?? DEFAULT_PAGE_SIZE;
}
