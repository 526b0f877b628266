import { PROBLEMS, type FieldError, type Problem, type ProblemCode } from './problems';

/**
 * Typed errors. Domain code throws these; `toProblem` (domain/failures.ts) is the one place that
 * turns them, and anything unexpected, into a Problem the HTTP layer renders.
 */
export abstract class ServiceError extends Error {
  abstract readonly code: ProblemCode;
  readonly headers: Record<string, string> = {};
  readonly extensions: Record<string, unknown> = {};
  /** A more specific GitScrum `error_code` than the catalogue's. */
  errorCode?: string;
  get status(): number {
    return PROBLEMS[this.code].status;
  }
  toProblem(): Problem {
    const problem: Problem = { code: this.code, detail: this.message || PROBLEMS[this.code].title, headers: this.headers };
    if (Object.keys(this.extensions).length) problem.extensions = this.extensions;
    if (this.errorCode) problem.errorCode = this.errorCode;
    return problem;
  }
}

export class MalformedJson extends ServiceError {
  readonly code = 'malformed_json';
}

export class Unauthorized extends ServiceError {
  readonly code = 'unauthorized';
  override readonly headers = { 'WWW-Authenticate': 'Bearer' };
}

export class Forbidden extends ServiceError {
  readonly code = 'forbidden';
}

export class NotFound extends ServiceError {
  readonly code = 'not_found';
}

export class Conflict extends ServiceError {
  readonly code = 'conflict';
}

export class PreconditionFailed extends ServiceError {
  readonly code = 'precondition_failed';
}

/** The answer to a conditional write (If-Match) whose resource is no longer as the client last saw it. */
export const changedSinceRead = () =>
  new PreconditionFailed('The resource has changed since the ETag given in If-Match; read it again (GET) and retry with its new ETag.');

/** A check of the current record before a conditional write: throws (412) when the precondition fails. */
export type Precondition<R> = (current: R) => void | Promise<void>;

export class PayloadTooLarge extends ServiceError {
  readonly code = 'payload_too_large';
}

export class UnsupportedMediaType extends ServiceError {
  readonly code = 'unsupported_media_type';
}

/** Rules said as a predicate ("is required", "must be ..."): the field's name goes before them. */
const PREDICATE = /^(is|are|was|must|differs|cannot|needs|nests|has)\b/;

/** "project_slug is required": the field and the rule in one sentence (a rule that names its subject stays as it is). */
function sentence(e: FieldError): FieldError {
  return { field: e.field, message: e.field && PREDICATE.test(e.message) ? `${e.field} ${e.message}` : e.message };
}

export class ValidationFailed extends ServiceError {
  readonly code = 'validation_failed';
  readonly errors: FieldError[];
  constructor(errors: FieldError[]) {
    const sentences = errors.map(sentence);
    super(sentences.map((e) => e.message).join('; '));
    this.errors = sentences;
  }
  static of(field: string, message: string): ValidationFailed {
    return new ValidationFailed([{ field, message }]);
  }
  override toProblem(): Problem {
    return { ...super.toProblem(), errors: this.errors };
  }
}

export class ServiceUnavailable extends ServiceError {
  readonly code = 'service_unavailable';
  constructor(message = 'The database is busy; retry shortly.', retryAfterSeconds = 1) {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export function projectNotFound(slug: string): NotFound {
  return Object.assign(new NotFound(`No project "${slug}" in this workspace.`), { errorCode: 'PROJECT_NOT_FOUND' });
}
export function labelNotFound(slug: string): NotFound {
  return Object.assign(new NotFound(`No label "${slug}" in this workspace.`), { errorCode: 'LABEL_NOT_FOUND' });
}
