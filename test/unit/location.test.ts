import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, test } from 'vitest';
import { basePath, locationFor } from '#http/location';

const called = (path: string | undefined, resourcePath: string) =>
  ({ resource: resourcePath, requestContext: { path, resourcePath } }) as unknown as APIGatewayProxyEvent;

describe('Location behind a stage or a base path', () => {
  test.each([
    ['an execute-api URL', '/prod/projects', '/projects', '/prod'],
    ['an execute-api URL, a deeper route', '/prod/projects/web/duplicate', '/projects/{slug}/duplicate', '/prod'],
    ['an execute-api URL, trailing slash', '/prod/projects-labels/', '/projects-labels', '/prod'],
    ['a custom domain at its root', '/projects', '/projects', ''],
    ['a custom domain with a two-part base path', '/api/v2/projects-labels', '/projects-labels', '/api/v2'],
    ['no called path at all', undefined, '/projects', ''],
  ])('%s', (_, path, resource, base) => {
    const event = called(path, resource);
    expect(basePath(event)).toBe(base);
    expect(locationFor('/projects/web?company_slug=acme', event)).toBe(`${base}/projects/web?company_slug=acme`);
  });

  test("without requestContext.resourcePath, the event's resource tells the route", () => {
    const event = {
      resource: '/projects/{slug}/duplicate',
      requestContext: { path: '/prod/projects/web/duplicate' },
    } as unknown as APIGatewayProxyEvent;
    expect(basePath(event)).toBe('/prod');
  });

  test('an absolute URL is left alone', () => {
    expect(locationFor('https://example.com/x', called('/prod/projects', '/projects'))).toBe('https://example.com/x');
  });
});
