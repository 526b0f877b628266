import type { Route } from '#http/routes';
import { sampleRequestsFor, type SampleRequest, type SampleTargets } from '#local/samples';

/** A workspace with a project, a label and a task, as tests seed them (and a webhook, for the tests of its routes). */
export type Fixture = Pick<SampleTargets, 'ws' | 'project' | 'label' | 'task' | 'webhook' | 'delivery'>;
export type { SampleRequest };

/** The route's sample request (the one behind events/) aimed at a test's own fixture. */
export function sampleRequest(route: Route, fixture: Fixture): SampleRequest {
  const request = sampleRequestsFor(fixture)[route.name];
  if (!request) throw new Error(`no sample request for route ${route.name}: add one to lib/local/samples.ts`);
  return request;
}

export function withQuery(path: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}
