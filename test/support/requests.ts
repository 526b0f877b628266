import type { Route } from '../../functions/commons/routes.ts';

export interface Fixture {
  ws: string;
  project: string;
  label: string;
  task: string;
}

export interface SampleRequest {
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

/**
 * A valid request for every route of the route table, against a fixture (a project, a label, a
 * task). Tests generated from the route table use it; a route without an entry here fails them.
 */
const samples: Record<string, (f: Fixture) => SampleRequest> = {
  'list-projects': (f) => ({ path: '/projects', query: { company_slug: f.ws } }),
  'create-project': (f) => ({ path: '/projects', query: {}, body: { company_slug: f.ws, name: 'Sample Project' } }),
  'get-project': (f) => ({ path: `/projects/${f.project}`, query: { company_slug: f.ws } }),
  'update-project': (f) => ({ path: `/projects/${f.project}`, query: {}, body: { company_slug: f.ws, description: 'updated' } }),
  'delete-project': (f) => ({ path: `/projects/${f.project}`, query: { company_slug: f.ws } }),
  'duplicate-project': (f) => ({ path: `/projects/${f.project}/duplicate`, query: { company_slug: f.ws } }),
  'project-stats': (f) => ({ path: `/projects/${f.project}/stats`, query: { company_slug: f.ws } }),
  'list-labels': (f) => ({ path: '/projects-labels', query: { company_slug: f.ws } }),
  'create-label': (f) => ({ path: '/projects-labels', query: { company_slug: f.ws }, body: { title: 'Sample Label', color: '00AA00' } }),
  'update-label': (f) => ({ path: `/projects-labels/${f.label}`, query: { company_slug: f.ws }, body: { color: '0000FF' } }),
  'delete-label': (f) => ({ path: `/projects-labels/${f.label}`, query: { company_slug: f.ws } }),
  'attach-label': (f) => ({ path: `/projects-labels/${f.label}/attach`, query: { company_slug: f.ws, project_slug: f.project }, body: { task_uuid: f.task } }),
  'detach-label': (f) => ({ path: `/projects-labels/${f.label}/detach`, query: { company_slug: f.ws, project_slug: f.project }, body: { task_uuid: f.task } }),
  'label-tasks': (f) => ({ path: `/projects-labels/${f.label}/tasks`, query: { company_slug: f.ws, project_slug: f.project } }),
};

export function sampleRequest(route: Route, fixture: Fixture): SampleRequest {
  const build = samples[route.name];
  if (!build) throw new Error(`no sample request for route ${route.name}: add one to test/support/requests.ts`);
  return build(fixture);
}

export function withQuery(path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/** Success status of each route's sample request. */
export function successStatus(route: Route): number {
  if (route.method === 'DELETE' && route.name !== 'detach-label') return 204;
  if (route.name === 'create-project' || route.name === 'create-label' || route.name === 'duplicate-project') return 201;
  return 200;
}
