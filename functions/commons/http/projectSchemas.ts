import * as z from 'zod/mini';
import { MAX_DESCRIPTION, MAX_PROJECT_NAME } from '#domain/limits';
import { PROJECT_STATUSES, VISIBILITIES, WORKFLOWS } from '#domain/projects';
import { name, text } from './validation';

/** Field rules of projects, shared by create, update and the list's filters. */
export const projectFields = {
  name: name(1, MAX_PROJECT_NAME),
  description: text(0, MAX_DESCRIPTION),
  visibility: z.enum(VISIBILITIES),
  status: z.enum(PROJECT_STATUSES),
  // Unknown keys are stripped (z.object's default), never stored.
  settings: z.object({
    default_workflow: z.optional(z.enum(WORKFLOWS)),
    task_prefix: z.optional(
      z.pipe(
        z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9]{1,9}$/, 'must be 2-10 letters or digits, starting with a letter')),
        z.transform((s: string) => s.toUpperCase()),
      ),
    ),
  }),
};
