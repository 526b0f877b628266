import * as z from 'zod';
import { ValidationFailed, type FieldError } from './errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging';

/** Validates `{ path, query, body }` against a route's schema; every offending field is reported. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
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
  return z
    .string()
    .transform((s) => s.trim())
    .pipe(
      z
        .string()
        .min(min, min === 1 ? 'must not be empty' : `must have at least ${min} characters`)
        .max(max, `must have at most ${max} characters`)
        // eslint-disable-next-line no-control-regex -- matching control characters is the point
        .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'must not contain control characters'),
    );
}

export const slugParam = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'is not a valid slug');

export const taskUuid = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", ":" or "-"');

/** `limit` (1-100, default 50; `per_page` is an alias) and `cursor`, as every list route takes them. */
const pageSizeParam = () =>
  z
    .string()
    .regex(/^\d{1,6}$/, `must be an integer from 1 to ${MAX_PAGE_SIZE}`)
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`))
    .optional();

export const pagination = {
  limit: pageSizeParam(),
  per_page: pageSizeParam(),
  cursor: z.string().min(1).max(2048, 'is not a valid cursor').optional(),
};

export function pageSize(q: { limit?: number | undefined; per_page?: number | undefined }): number {
  return q.limit ?? q.per_page ?? DEFAULT_PAGE_SIZE;
}
