import * as z from 'zod/mini';
import { MAX_LABEL_TITLE } from '#domain/limits';
import { name } from './validation';

/** Field rules of labels, shared by create and update. */
export const labelFields = {
  title: name(1, MAX_LABEL_TITLE),
  /** Six hex digits; a leading `#` is accepted and dropped; stored and returned uppercase. */
  color: z.pipe(
    z.string().check(z.regex(/^#?[0-9A-Fa-f]{6}$/, 'must be six hex digits, e.g. FF5733')),
    z.transform((c: string) => c.replace(/^#/, '').toUpperCase()),
  ),
};
