import { describe, expect, test } from 'vitest';
import { Conflict, NotFound, ValidationFailed } from '#domain/errors';
import { problemFromError } from '#http/problem';

const body = (r: { body: string }) => JSON.parse(r.body);

describe('problem+json mapping', () => {
  test('typed errors keep their status and detail', () => {
    const res = problemFromError(new NotFound('No project "x" in this workspace.'), 'req-1');
    expect(res.statusCode).toBe(404);
    expect(res.headers).toMatchObject({ 'Content-Type': 'application/problem+json' });
    expect(body(res)).toEqual({
      type: 'https://project-label-service.dev/problems/not_found',
      title: 'Not Found',
      status: 404,
      detail: 'No project "x" in this workspace.',
      message: 'No project "x" in this workspace.',
      code: 'not_found',
      error_code: 'NOT_FOUND',
      request_id: 'req-1',
    });
    expect(problemFromError(new Conflict('taken'), 'r').statusCode).toBe(409);
  });

  test('validation errors list their fields, each message a sentence naming its field', () => {
    const res = problemFromError(
      new ValidationFailed([
        { field: 'name', message: 'must not be empty' },
        { field: 'task_uuids', message: 'task t1 already carries 100 labels' },
      ]),
      'r',
    );
    expect(body(res).errors).toEqual([
      { field: 'name', message: 'name must not be empty' },
      { field: 'task_uuids', message: 'task t1 already carries 100 labels' },
    ]);
    expect(body(res).detail).toBe('name must not be empty; task t1 already carries 100 labels');
  });

  test.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
    'TimeoutError',
  ])('%s becomes 503 with Retry-After', (name) => {
    const error = Object.assign(new Error('raw aws message with PK WS#secret'), { name });
    const res = problemFromError(error, 'r');
    expect(res.statusCode).toBe(503);
    expect(res.headers).toMatchObject({ 'Retry-After': expect.stringMatching(/^\d+$/) });
    expect(res.body).not.toContain('WS#secret');
    expect(res.body).not.toContain(name);
  });

  test('anything unexpected becomes a 500 that leaks nothing', () => {
    const error = Object.assign(new Error('ValidationException: key PK WS#acme SK PROJECT#x'), { name: 'ValidationException' });
    const res = problemFromError(error, 'r');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toMatch(/WS#|PROJECT#|ValidationException|stack|at /);
    expect(body(res).code).toBe('internal_error');
  });
});
