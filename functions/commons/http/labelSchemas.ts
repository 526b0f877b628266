import * as z from 'zod/mini';
import { MAX_LABEL_TITLE, MAX_TASKS_PER_REQUEST } from '#domain/limits';
import { name, slugParam, taskUuid } from './validation';

export const labelFields = {
  title: name(1, MAX_LABEL_TITLE),
  /** Six hex digits; a leading `#` is accepted and dropped; stored and returned uppercase. */
  color: z.pipe(
    z.string().check(z.regex(/^#?[0-9A-Fa-f]{6}$/, 'must be six hex digits, e.g. FF5733')),
    z.transform((c: string) => c.replace(/^#/, '').toUpperCase()),
  ),
};

/** `project_slug` in the query and `task_uuid` or `task_uuids` (up to 100) in the body. */
export const linkInput = z.object({
  path: z.object({ slug: slugParam }),
  query: z.object({ project_slug: slugParam }),
  body: z
    .object({
      task_uuid: z.optional(taskUuid),
      task_uuids: z.optional(
        z
          .array(taskUuid)
          .check(
            z.minLength(1, 'must not be empty'),
            z.maxLength(MAX_TASKS_PER_REQUEST, `must have at most ${MAX_TASKS_PER_REQUEST} items`),
          ),
      ),
    })
    .check(
      z.refine((b) => (b.task_uuid === undefined) !== (b.task_uuids === undefined), {
        message: 'send either task_uuid or task_uuids',
        path: ['task_uuid'],
      }),
    ),
});
