import type { APIGatewayProxyEvent } from 'aws-lambda';

type Located = Pick<APIGatewayProxyEvent, 'resource' | 'requestContext'>;

/**
 * The part of the called URL's path before the route: the stage on an execute-api URL (`/prod` of
 * `/prod/projects`), a custom domain's base path, or nothing (a domain mapped at its root, the local
 * API). API Gateway's `requestContext.path` is the whole path, and its route part has as many
 * segments as the route's resource path (slugs hold no `/`), so what comes before them is the base.
 * `event.path` cannot tell: API Gateway strips the stage from it on execute-api URLs but keeps a
 * custom domain's base path in it.
 */
export function basePath(event: Located): string {
  const called = event.requestContext?.path;
  const resource = event.requestContext?.resourcePath ?? event.resource;
  if (!called || !resource) return '';
  const route = resource.split('/').filter(Boolean).length;
  const segments = called.split('/').filter(Boolean);
  return segments.length > route ? `/${segments.slice(0, segments.length - route).join('/')}` : '';
}

/**
 * A `Location` as the client must follow it. Handlers give it from the API's root
 * (`/projects/{slug}?company_slug=..`); behind a stage or a base path, a GET of that bare path would
 * miss the API, so the called URL's base is put in front.
 */
export function locationFor(location: string, event: Located): string {
  return location.startsWith('/') ? `${basePath(event)}${location}` : location;
}
