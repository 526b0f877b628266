import * as z from 'zod';
import { PROBLEMS } from './problems';

import { SLUG } from '#domain/slugs';
import { PROJECT_STATUSES, VISIBILITIES, WORKFLOWS } from '#domain/entities';

/**
 * What the API answers, declared once: the views (projectViews.ts, labelViews.ts) are typed by these
 * schemas (a type-only import: no function bundles them), and the OpenAPI document is built from them.
 * The integration suite also validates every response it gets against the document.
 */
const slug = z.string().regex(SLUG);
const timestamp = z.iso.datetime({ offset: true });
const color = z.string().regex(/^[0-9A-F]{6}$/);

export const Label = z.object({ id: z.int().min(1), slug, title: z.string(), color }).meta({ id: 'Label' });
export const ProjectLabel = Label.extend({ tasks_count: z.int().min(0) }).meta({ id: 'ProjectLabel' });
export const TaskLabels = z.object({ task_uuid: z.string(), labels: z.array(Label) }).meta({ id: 'TaskLabels' });

const visibility = z.enum(VISIBILITIES);
const status = z.enum(PROJECT_STATUSES);

export const ProjectStats = z
  .object({
    tasks_count: z.int().min(0),
    completed_count: z.int().min(0),
    open_count: z.int().min(0),
    members_count: z.int().min(0),
    sprints_count: z.int().min(0),
    labels_count: z.int().min(0),
  })
  .meta({ id: 'ProjectStats' });

export const ProjectListItem = z
  .object({
    slug,
    name: z.string(),
    description: z.string(),
    logo: z.string().nullable(),
    visibility,
    is_private: z.boolean(),
    recurring: z.boolean(),
    owner: z.object({ name: z.string(), username: z.string() }),
    status,
    created_at: timestamp,
  })
  .meta({ id: 'ProjectListItem' });

export const Project = ProjectListItem.extend({
  settings: z.object({ default_workflow: z.enum(WORKFLOWS), task_prefix: z.string() }),
  stats: ProjectStats,
}).meta({ id: 'Project' });

export const ProjectCreated = z
  .object({ slug, name: z.string(), description: z.string(), visibility, is_private: z.boolean(), created_at: timestamp })
  .meta({ id: 'ProjectCreated' });

/** A search hit as GitScrum's clients read it. */
export const SearchItem = ProjectListItem.extend({ title: z.string(), company_slug: slug, route: z.string() });

export const SearchResults = z
  .record(z.string(), z.object({ items: z.array(SearchItem), total: z.int().min(0) }))
  .meta({ id: 'SearchResults' });

const PageMeta = z
  .object({
    limit: z.int().min(1),
    next_cursor: z.string().nullable(),
    current_page: z.int().min(1).optional(),
    per_page: z.int().min(1).optional(),
  })
  .meta({ id: 'PageMeta' });

/** A label list answered whole, as the interface answers it (no paging parameter): `limit` is its number of labels. */
const WholeListMeta = z.object({ limit: z.int().min(0), next_cursor: z.null() }).meta({ id: 'WholeListMeta' });

const codes = Object.keys(PROBLEMS) as [keyof typeof PROBLEMS, ...(keyof typeof PROBLEMS)[]];

/** RFC 9457 problem details, with the members GitScrum clients read (`message`, `error_code`). */
export const Problem = z
  .object({
    type: z.url(),
    title: z.string(),
    status: z.int().min(400).max(599),
    detail: z.string(),
    message: z.string(),
    code: z.enum(codes),
    error_code: z.string().regex(/^[A-Z_]+$/),
    request_id: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    applied_task_uuids: z.array(z.string()).optional().meta({
      description: 'On a 503 of a bulk attach or detach that stopped part way: the tasks it did change (repeating the request is safe).',
    }),
  })
  .meta({ id: 'Problem' });

/** `{ data }`, and `meta` on paginated lists. */
const envelope = (data: z.ZodType, meta?: z.ZodType) => (meta ? z.object({ data, meta }) : z.object({ data, meta: z.never().optional() }));

/** One resource. */
export const one = (schema: z.ZodType) => envelope(schema);
/** A page of a list, with its cursor. */
export const page = (schema: z.ZodType) => envelope(z.array(schema), PageMeta);
/** A label list answered whole (no paging parameter). */
export const whole = (schema: z.ZodType) => envelope(z.array(schema), WholeListMeta);

export const ProjectDeleted = z.object({ slug: z.string(), deleted: z.literal(true) });
export const LabelDeleted = z.object({ id: z.int(), slug: z.string(), deleted: z.literal(true) });
