/**
 * Typed errors. Domain code throws these; `problem.ts` is the one place that turns them
 * (and anything unexpected) into RFC 9457 problem+json responses.
 */
export interface FieldError {
  field: string;
  message: string;
}

export abstract class HttpProblem extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  abstract readonly title: string;
  readonly headers: Record<string, string> = {};
}

export class MalformedJson extends HttpProblem {
  readonly status = 400;
  readonly code = 'malformed_json';
  readonly title = 'Malformed JSON';
}

export class Unauthorized extends HttpProblem {
  readonly status = 401;
  readonly code = 'unauthorized';
  readonly title = 'Unauthorized';
  override readonly headers = { 'WWW-Authenticate': 'Bearer' };
}

export class Forbidden extends HttpProblem {
  readonly status = 403;
  readonly code = 'forbidden';
  readonly title = 'Forbidden';
}

export class NotFound extends HttpProblem {
  readonly status = 404;
  readonly code = 'not_found';
  readonly title = 'Not Found';
}

export class Conflict extends HttpProblem {
  readonly status = 409;
  readonly code = 'conflict';
  readonly title = 'Conflict';
}

export class PayloadTooLarge extends HttpProblem {
  readonly status = 413;
  readonly code = 'payload_too_large';
  readonly title = 'Payload Too Large';
}

export class UnsupportedMediaType extends HttpProblem {
  readonly status = 415;
  readonly code = 'unsupported_media_type';
  readonly title = 'Unsupported Media Type';
}

export class ValidationFailed extends HttpProblem {
  readonly status = 422;
  readonly code = 'validation_failed';
  readonly title = 'Validation Failed';
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; '));
  }
  static of(field: string, message: string): ValidationFailed {
    return new ValidationFailed([{ field, message }]);
  }
}

export class ServiceUnavailable extends HttpProblem {
  readonly status = 503;
  readonly code = 'service_unavailable';
  readonly title = 'Service Unavailable';
  constructor(
    message = 'The database is busy; retry shortly.',
    retryAfterSeconds = 1,
  ) {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
