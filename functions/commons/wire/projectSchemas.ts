import * as z from 'zod/mini';
import { MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES, MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES } from '#domain/limits';

import { name, text } from './validation';
import { PROJECT_STATUSES, VISIBILITIES, WORKFLOWS } from '#domain/entities';

/**
 * Field rules of projects, shared by create, update and the list's filters. Each is marked pure, so a
 * function's bundle builds only the rules its route uses (the list never builds the settings rule).
 */
export const projectName = /* @__PURE__ */ name(1, MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES);
export const projectDescription = /* @__PURE__ */ text(0, MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES);
export const projectVisibility = /* @__PURE__ */ z.enum(VISIBILITIES);
export const projectStatus = /* @__PURE__ */ z.enum(PROJECT_STATUSES);
// Unknown keys are stripped (z.object's default), never stored.
export const projectSettings = /* @__PURE__ */ settingsRule();

function settingsRule() {
  return z.object({
    default_workflow: z.optional(z.enum(WORKFLOWS)),
    task_prefix: z.optional(
      z.pipe(
        z
          .string()
          .check(z.regex(/^[A-Za-z][A-Za-z0-9]{1,9}$/, 'is not a task prefix; use 2 to 10 letters or digits, starting with a letter')),
        z.transform((s: string) => s.toUpperCase()),
      ),
    ),
  });
}
