import * as z from 'zod/mini';
import { SEARCH_CATEGORIES, searchProjects } from '#domain/search';
import { endpoint, ok } from '#http/endpoint';
import { projectSearchItem } from '#wire/projectViews';
import { name, pageSizeFields, pagingRules } from '#wire/validation';
import { MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES } from '#domain/limits';

/**
 * Category names as GitScrum's clients send them, plural or singular (`project`, `user_story`). A Map,
 * not an object: a category named `constructor` or `__proto__` is a name like any other.
 */
const SINGULAR = new Map([
  ['project', 'projects'],
  ['task', 'tasks'],
  ['user_story', 'user_stories'],
  ['sprint', 'sprints'],
  ['note', 'notes'],
]);
const known = new Set<string>(SEARCH_CATEGORIES);
const NOT_A_CATEGORY = `is not a category; use one or more of ${SEARCH_CATEGORIES.join(', ')}, separated by commas`;
/**
 * Categories, comma-separated, each judged where the list is split (`categories[1]` names the second): four zod schemas.
 * An unknown one goes on to the rules across fields (`continue`), as the refinement it replaces did.
 */
const categories = z.optional(
  z.pipe(
    z.string(),
    z.transform((list: string, ctx) => {
      const parts = list.split(',').map((c) => c.trim());
      const named = parts.map((c) => SINGULAR.get(c) ?? c);
      named.forEach((c, i) => {
        if (!known.has(c)) ctx.issues.push({ code: 'custom', message: NOT_A_CATEGORY, input: parts[i], path: [i], continue: true });
      });
      return named;
    }),
  ),
);

const paging = pageSizeFields();

const input = z.object({
  query: z
    .object({
      q: name(1, MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES),
      categories,
      // `per_page` is an alias of `limit`, as on every route (both and different: 422).
      limit: paging.limit,
      per_page: paging.per_page,
    })
    .check(pagingRules()),
});

/**
 * GET /search?q=&categories=projects&limit=5 (or per_page=5): GitScrum's search, answered for projects (by slug, then
 * by name as GET /projects?name= matches); other categories answer empty. Without company_slug it
 * searches the workspaces the token is granted (the first 10). `{ data: { projects: { items: [...] }, ... } }`.
 */
export const handler = endpoint({
  scope: 'projects:read',
  input,
  anyWorkspace: true,
  run: async ({ query }, { workspaces }) => {
    const categories = new Set<string>(query.categories ?? SEARCH_CATEGORIES);
    // Without a prototype: every category, `__proto__` included, is an own member of the answer.
    const data: Record<string, { items: unknown[]; total: number }> = Object.create(null);
    for (const c of categories) data[c] = { items: [], total: 0 };
    if (categories.has('projects')) {
      const items = (await searchProjects(workspaces, query.q, query.limit ?? query.per_page ?? 5)).map(projectSearchItem);
      data.projects = { items, total: items.length };
    }
    return ok(data);
  },
});
