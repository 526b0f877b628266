import * as z from 'zod/mini';
import { ACTIVITY_CONTEXTS } from '#domain/activity';
import { CHANGE_TYPES, type ChangeType, changeTypeNamed } from '#domain/eventNames';
import { quoted } from '#domain/quoted';
import { paginationFields, pagingRules, projectSlugParam, rfc3339Time, taskUuid } from './validation';

/**
 * What GET /activities takes: GitScrum's context names (`from_context`, `project_slug`, `uuid`, and
 * the `sprint_slug` its client sends with a sprint context), the filters, the order and a cursor.
 */

// Said when a type is refused, not at load: quoting each type builds the quoting rules' patterns (domain/patterns.ts).
const typesSentence = () => `${CHANGE_TYPES.map((t) => quoted(t)).join(', ')} (or their dotted forms, e.g. "project.updated")`;

/** Entry types, comma-separated, each judged where the list is split: three zod schemas. */
const types = z.pipe(
  z.string(),
  z.transform((value: string, ctx) => {
    const parts = value.split(',');
    const named = parts.map(changeTypeNamed);
    named.forEach((type, i) => {
      if (type === undefined) {
        const part = parts[i]!;
        ctx.issues.push({ code: 'custom', input: part, message: `${quoted(part)} is not an entry type; use ${typesSentence()}` });
      }
    });
    return [...new Set(named)] as ChangeType[]; // each named: a list with an unknown part has failed above
  }),
);

export const listActivitiesInput = () => {
  const optionalTime = z.optional(rfc3339Time);
  return z.object({
    query: z
      .object({
        from_context: z.enum(ACTIVITY_CONTEXTS),
        project_slug: z.optional(projectSlugParam),
        project_id: z.optional(
          z
            .string()
            .check(
              z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "is not a project id; use an entry's project_id"),
            ),
        ),
        sprint_slug: z.optional(z.string()),
        uuid: z.optional(taskUuid),
        type: z.optional(types),
        actor: z.optional(
          z
            .string()
            .check(z.minLength(1, 'is empty; give a username'), z.maxLength(128, 'is too long; usernames are at most 128 characters')),
        ),
        since: optionalTime,
        until: optionalTime,
        order: z.optional(z.enum(['asc', 'desc'])),
        ...paginationFields(),
      })
      .check(
        pagingRules(),
        z.superRefine((q, ctx) => {
          if (q.page !== undefined && (q.type !== undefined || q.actor !== undefined || q.uuid !== undefined)) {
            const message = 'cannot be combined with type, actor or uuid (a filtered page may stop short); follow meta.next_cursor';
            ctx.issues.push({ code: 'custom', input: q.page, path: ['page'], message });
          }
          if (q.project_id !== undefined && q.from_context !== 'project') {
            ctx.issues.push({
              code: 'custom',
              input: q.project_id,
              path: ['project_id'],
              message: 'is only read with from_context=project',
            });
          }
          if (q.from_context === 'project' && q.project_slug === undefined) {
            ctx.issues.push({ code: 'custom', input: undefined, path: ['project_slug'], message: 'is required with from_context=project' });
          }
          if (q.since !== undefined && q.until !== undefined && q.since > q.until) {
            ctx.issues.push({
              code: 'custom',
              input: q.until,
              path: ['until'],
              message: `is before since (${q.since}); give a range that runs forward`,
            });
          }
        }),
      ),
  });
};
