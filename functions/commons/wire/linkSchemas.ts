import * as z from 'zod/mini';
import { MAX_TASKS_PER_REQUEST } from '#domain/limits';
import { quoted } from '#domain/quoted';
import { projectSlugParam, slugParam, taskUuid } from './validation';

/**
 * The input of attach and detach (a module of its own: the other label routes never build it at a
 * cold start).
 */

const TASKS = `1 to ${MAX_TASKS_PER_REQUEST} task ids`;
const taskUuidList = z
  .array(taskUuid)
  .check(z.minLength(1, `is empty; list ${TASKS}`), z.maxLength(MAX_TASKS_PER_REQUEST, `lists too many tasks; list ${TASKS}`));

const EITHER = 'cannot be sent with task_uuids; send either task_uuid or task_uuids';

const sameTasks = (a: string[] | undefined, b: string[] | undefined) =>
  a === undefined || b === undefined || [...new Set(a)].sort().join() === [...new Set(b)].sort().join();

/**
 * `project_slug` in the query; `task_uuid` or `task_uuids` (up to 100) in the body or the query
 * string (comma-separated there: DELETE bodies get dropped); both places and different: 422.
 * No task at all: the change applies to the project's label set.
 */
export const linkInput = z
  .object({
    path: z.object({ slug: slugParam }),
    query: z.object({
      project_slug: projectSlugParam,
      task_uuid: z.optional(taskUuid),
      task_uuids: z.optional(
        z.pipe(
          z.string(),
          z.pipe(
            z.transform((s: string) => s.split(',')),
            taskUuidList,
          ),
        ),
      ),
    }),
    body: z.object({ task_uuid: z.optional(taskUuid), task_uuids: z.optional(taskUuidList) }),
  })
  .check(
    z.refine(({ body }) => !(body.task_uuid !== undefined && body.task_uuids !== undefined), {
      message: EITHER,
      path: ['body', 'task_uuid'],
    }),
    z.refine(({ query }) => !(query.task_uuid !== undefined && query.task_uuids !== undefined), {
      message: EITHER,
      path: ['query', 'task_uuid'],
    }),
    z.superRefine(({ query, body }, ctx) => {
      const inQuery = query.task_uuid ?? query.task_uuids?.join(',');
      const inBody = body.task_uuid === undefined ? body.task_uuids : [body.task_uuid];
      if (sameTasks(query.task_uuid === undefined ? query.task_uuids : [query.task_uuid], inBody)) return;
      const message = `in the body differs from ${quoted(inQuery)} in the query string; send the tasks in one place, or the same in both`;
      // Reported as task_uuid, whichever the body sent; the value named is the body's.
      ctx.addIssue({ code: 'custom', message, path: ['body', 'task_uuid'], params: { value: body.task_uuid ?? body.task_uuids } });
    }),
  );

/** The task selection of a valid link request, wherever it was sent. */
export function linkTasks({ query, body }: z.output<typeof linkInput>): {
  taskUuid?: string | undefined;
  taskUuids?: string[] | undefined;
} {
  // A list anywhere asks for the bulk answer, even when the other place names the same single task.
  const taskUuids = body.task_uuids ?? query.task_uuids;
  return taskUuids !== undefined ? { taskUuids } : { taskUuid: body.task_uuid ?? query.task_uuid };
}
