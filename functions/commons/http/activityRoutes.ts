import { ActivityEntry } from '#wire/activityAnswers';
import { page } from '#wire/answers';
import type { Route, SampleTargets } from './route';

const inProject = (t: SampleTargets) => ({ company_slug: t.ws, from_context: 'project', project_slug: t.project });

/** The history's routes: rows of the route table (routes.ts), with the same meaning as every other row. */
export const activityRoutes: readonly Route[] = [
  {
    name: 'list-activities',
    method: 'GET',
    path: '/activities',
    handler: 'functions/activity/list.ts',
    scope: 'activity:read',
    access: 'read',
    answer: { status: 200, schema: page(ActivityEntry), description: 'A page of the history, newest first (order=asc: oldest first)' },
    tagged: true,
    sample: (t) => ({ path: '/activities', query: inProject(t) }),
  },
];
