/**
 * What can go wrong, in the domain's own words. Use cases throw these; the edge (wire/problems.ts)
 * is the one place that decides how each is answered (status, title, error_code, headers): nothing
 * here knows of HTTP.
 */
import { quoted } from './quoted';

/** One broken rule of one field of a request or command. */
export interface FieldError {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {}

/** What a missing thing is, when it is a resource the caller named. */
export type Subject = 'project' | 'label' | 'webhook' | 'delivery';

export class NotFound extends DomainError {
  constructor(
    message: string,
    readonly subject?: Subject,
  ) {
    super(message);
  }
}

/** Another state stands in the way: a title taken, a resource changed under a write, a request still running. */
export class Conflict extends DomainError {
  constructor(
    message: string,
    /** When the same command is worth trying again (it waits on something that ends by itself). */
    readonly retryAfterSeconds?: number,
    readonly reason?: 'key_in_use',
  ) {
    super(message);
  }
}

/** The thing is no longer as the caller last saw it (its version differs from the one named). */
export class PreconditionFailed extends DomainError {}

/** The answer to a conditional write whose resource is no longer as the client last saw it. */
export const changedSinceRead = () =>
  new PreconditionFailed('The resource has changed since the ETag given in If-Match; read it again (GET) and retry with its new ETag.');

/** A check of the current record before a conditional write: throws PreconditionFailed when it fails. */
export type Precondition<R> = (current: R) => void | Promise<void>;

/**
 * A broken rule as a use case or a schema states it: the field, the rule said of its value ("is not
 * a color; use six hex digits"), and the value refused, when one was given (absent: it is missing).
 */
export interface Refusal extends FieldError {
  value?: unknown;
}

/** Rules said as a predicate ("is required", "must be ..."): the field's name goes before them. */
const PREDICATE = /^(is|are|was|must|differs|cannot|needs|nests|has|lists|reaches|already|in)\b/;

/**
 * The sentence a client reads: `color: "red" is not a color; use six hex digits, e.g. FF5733` (the
 * field, the value refused, safely quoted, and the rule), `project_slug is required: ...` (no
 * value); a rule that names its own subject (not a predicate) stays as it is.
 */
export function sentence(e: Refusal): FieldError {
  if (!e.field || !PREDICATE.test(e.message)) return { field: e.field, message: e.message };
  return { field: e.field, message: e.value === undefined ? `${e.field} ${e.message}` : `${e.field}: ${quoted(e.value)} ${e.message}` };
}

/** Values that break the rules, every broken rule listed, each naming the value it refuses. */
export class ValidationFailed extends DomainError {
  readonly errors: FieldError[];
  constructor(
    errors: Refusal[],
    readonly reason?: 'key_reused',
  ) {
    const sentences = errors.map(sentence);
    super(sentences.map((e) => e.message).join('; '));
    this.errors = sentences;
  }
  static of(field: string, message: string, value?: unknown): ValidationFailed {
    return new ValidationFailed([{ field, message, value }]);
  }
}

/** A limit of the model reached (a task's 100 labels): a rule of the values, said as one. */
export class LimitReached extends ValidationFailed {}

/** A position the caller kept (a sync token) that is older than what is kept: start again from a time instead. */
export class Gone extends DomainError {}

/** The database stayed busy or away through every retry: the same command later will likely work. */
export class Busy extends DomainError {
  constructor(
    message = 'The database is busy; retry shortly.',
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A command over many tasks that stopped after changing some of them: which, and why it stopped. */
export class PartlyApplied extends DomainError {
  constructor(
    readonly failure: DomainError,
    readonly appliedTasks: string[],
  ) {
    super(`${failure.message} The request was applied to ${appliedTasks.length} of its tasks (applied_task_uuids); repeating it is safe.`);
  }
}

export function projectNotFound(slug: string): NotFound {
  return new NotFound(`No project "${slug}" in this workspace.`, 'project');
}
export function labelNotFound(slug: string): NotFound {
  return new NotFound(`No label "${slug}" in this workspace.`, 'label');
}
