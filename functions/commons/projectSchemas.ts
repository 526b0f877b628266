import * as z from 'zod/mini';
import { WORKFLOWS } from './projects';
import { text } from './validation';

/** Field rules shared by create and update. */
export const projectFields = {
  description: text(0, 10_000),
  visibility: z.enum(['public', 'private']),
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
