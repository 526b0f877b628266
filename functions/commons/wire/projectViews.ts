import type * as z from 'zod';

import type { Project, ProjectCreated, ProjectListItem, ProjectStats, SearchItem } from './answers';
import type { ProjectRecord } from '#domain/entities';

/** The three shapes of a project the interface defines, plus the statistics object; each typed by its schema in answers.ts. */

export function projectListView(p: ProjectRecord): z.infer<typeof ProjectListItem> {
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    logo: p.logo ?? null,
    visibility: p.visibility,
    is_private: p.visibility === 'private',
    recurring: p.recurring,
    owner: { name: p.owner.name, username: p.owner.username },
    status: p.status,
    created_at: p.created_at,
  };
}

export function projectStatsView(p: ProjectRecord): z.infer<typeof ProjectStats> {
  return {
    tasks_count: p.tasks_count,
    completed_count: p.completed_count,
    open_count: Math.max(0, p.tasks_count - p.completed_count),
    members_count: p.members_count,
    sprints_count: p.sprints_count,
    labels_count: p.labels_count,
  };
}

export function projectFullView(p: ProjectRecord): z.infer<typeof Project> {
  return {
    ...projectListView(p),
    settings: { default_workflow: p.settings.default_workflow, task_prefix: p.settings.task_prefix },
    stats: projectStatsView(p),
  };
}

export function projectCreateView(p: ProjectRecord): z.infer<typeof ProjectCreated> {
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    visibility: p.visibility,
    is_private: p.visibility === 'private',
    created_at: p.created_at,
  };
}

export function projectLocation(ws: string, slug: string): string {
  return `/projects/${encodeURIComponent(slug)}?company_slug=${encodeURIComponent(ws)}`;
}

/** A search hit as GitScrum's clients read it: `title`, and `route` `/{company_slug}/projects/{slug}`. */
export function projectSearchItem(p: ProjectRecord): z.infer<typeof SearchItem> {
  return { ...projectListView(p), title: p.name, company_slug: p.workspace, route: `/${p.workspace}/projects/${p.slug}` };
}
