import * as z from 'zod';
import { WORKFLOWS } from './projects';
import { text } from './validation';

/** Field rules shared by create and update. */
export const projectFields = {
  description: text(0, 10_000),
  visibility: z.enum(['public', 'private']),
  settings: z
    .object({
      default_workflow: z.enum(WORKFLOWS).optional(),
      task_prefix: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9]{1,9}$/, 'must be 2-10 letters or digits, starting with a letter')
        .transform((s) => s.toUpperCase())
        .optional(),
    })
    .strip(),
};
