import { matchPath } from './route';
import { routes, type Route } from './routes';

/**
 * What a path takes, as a 405 answers a method it does not (the local gateway, and the deployed API's
 * mock method on each path a route serves: lib/cdk/method-not-allowed.ts): its routes' methods in the
 * table's order, then OPTIONS, which CORS preflight answers on every such path. `path` is a request's
 * path or a route's template (`/projects/{slug}`); none at all when no route serves it (a 404).
 */
export function allowedMethods(path: string, table: readonly Route[] = routes): string[] {
  const methods = table.filter((route) => matchPath(route.path, path)).map((route) => route.method);
  return methods.length ? [...new Set([...methods, 'OPTIONS'])] : [];
}

/** The 405's detail: the method refused, the path (a route's template deployed: `$context.resourcePath`) and what it takes. */
export function methodNotAllowedDetail(method: string, path: string, allowed: readonly string[]): string {
  return `${method} is not a method of ${path}: it takes ${allowed.join(', ')} (the Allow header lists them).`;
}
