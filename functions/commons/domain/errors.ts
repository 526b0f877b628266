/**
 * What can go wrong, in the domain's own words. Use cases throw these; the edge (wire/problems.ts)
 * is the one place that decides how each is answered (status, title, error_code, headers): nothing
 * here knows of HTTP.
 */

/** One broken rule of one field of a request or command. */
export interface FieldError {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {}

/** What a missing thing is, when it is a resource the caller named. */
export type Subject = 'project' | 'label';

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

/** Rules said as a predicate ("is required", "must be ..."): the field's name goes before them. */
const PREDICATE = /^(is|are|was|must|differs|cannot|needs|nests|has)\b/;

/** "project_slug is required": the field and the rule in one sentence (a rule that names its subject stays as it is). */
function sentence(e: FieldError): FieldError {
  return { field: e.field, message: e.field && PREDICATE.test(e.message) ? `${e.field} ${e.message}` : e.message };
}

/** Values that break the rules, every broken rule listed. */
export class ValidationFailed extends DomainError {
  readonly errors: FieldError[];
  constructor(
    errors: FieldError[],
    readonly reason?: 'key_reused',
  ) {
    const sentences = errors.map(sentence);
    super(sentences.map((e) => e.message).join('; '));
    this.errors = sentences;
  }
  static of(field: string, message: string): ValidationFailed {
    return new ValidationFailed([{ field, message }]);
  }
}

/** A limit of the model reached (a task's 100 labels): a rule of the values, said as one. */
export class LimitReached extends ValidationFailed {}

/** The database stayed busy or away through every retry: the same command later will likely work. */
export class Busy extends DomainError {
  constructor(
    message = 'The database is busy; retry shortly.',
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
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
