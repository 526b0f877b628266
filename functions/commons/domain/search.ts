import { readProject } from '#store/projects';
import { findProjectsByName } from './projects';
import { SLUG } from './slugs';
import type { ProjectRecord } from './entities';
import { allSettled } from '#store/settled';

/** The categories GitScrum's search answers; this service holds projects, the rest answer empty. */
export const SEARCH_CATEGORIES = ['projects', 'tasks', 'user_stories', 'sprints', 'wiki', 'notes'] as const;

/** Workspaces one search reads at most when the request names none (the token's first ones). */
const MAX_SEARCHED_WORKSPACES = 10;

/**
 * Projects matching `q`, at most `limit`: a project whose slug is `q` first, then the name matches
 * of find-by-name (folded prefix, exact match first, the same index), across the given workspaces.
 */
export async function searchProjects(workspaces: string[], q: string, limit: number): Promise<ProjectRecord[]> {
  const found: ProjectRecord[] = [];
  const seen = new Set<string>();
  const add = (p: ProjectRecord | undefined) => {
    if (!p || seen.has(`${p.workspace}/${p.slug}`) || found.length >= limit) return;
    seen.add(`${p.workspace}/${p.slug}`);
    found.push(p);
  };
  const searched = workspaces.slice(0, MAX_SEARCHED_WORKSPACES);
  const bySlug = SLUG.test(q) ? await allSettled(searched.map((ws) => readProject(ws, q))) : [];
  bySlug.forEach(add);
  for (const [i, ws] of searched.entries()) {
    if (found.length >= limit) break;
    // Only what the answer still has room for (and the slug's match again, which its name may match too):
    // a search of ten workspaces reads about one page of projects, not ten.
    const room = limit - found.length + (bySlug[i] ? 1 : 0);
    (await findProjectsByName(ws, q, { limit: room })).items.forEach(add);
  }
  return found;
}
