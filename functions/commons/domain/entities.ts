/**
 * The entities the service is about, declared once: what a project, a label, an actor and a token
 * are. The use cases (domain/) work on them; the store (store/) keeps them in items and reads them
 * back; the wire room shapes them for answers and events. Pure declarations: this module imports
 * nothing.
 */

/** Who made a change: the token owner, recorded on what they write so events can name them. */
export interface Actor {
  username: string;
  name: string;
  /** The request that made the change (its X-Request-Id), for the history (absent on items written before). */
  request_id?: string;
  /** That request's Idempotency-Key, where it sent one. */
  idempotency_key?: string;
}

/** The actor of changes the service makes itself (a deleted task's labels taken off, a failing webhook turned off). */
export const SYSTEM_ACTOR: Actor = { username: 'system', name: 'Project and Label Service' };

export const PROJECT_STATUSES = ['in_progress', 'completed', 'archived'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const WORKFLOWS = ['kanban', 'scrum'] as const;
export type Workflow = (typeof WORKFLOWS)[number];
export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** A project (as stored: keys and index attributes omitted). */
export interface ProjectRecord {
  id: string;
  workspace: string;
  slug: string;
  name: string;
  description: string;
  logo?: string;
  visibility: Visibility;
  recurring: boolean;
  owner: { name: string; username: string };
  status: ProjectStatus;
  settings: { default_workflow: Workflow; task_prefix: string };
  client_uuid?: string;
  tasks_count: number;
  completed_count: number;
  members_count: number;
  sprints_count: number;
  labels_count: number;
  created_at: string;
  updated_at: string;
  /** Who made the last change (absent on items written before actors were recorded). */
  updated_by?: Actor;
  /** The project this one is a copy of, for its `Project Duplicated` event. */
  source_slug?: string;
  /** How many times a user changed the item (absent until the first change): what If-Match writes are conditional on. */
  rev?: number;
}

export type ProjectPatch = Partial<Pick<ProjectRecord, 'name' | 'description' | 'visibility' | 'status'>> & {
  settings?: Partial<ProjectRecord['settings']>;
};

/** A label of a workspace. */
export interface LabelRecord {
  id: number;
  slug: string;
  title: string;
  color: string;
  created_at: string;
  updated_at: string;
  /** Who made the last change (absent on items written before actors were recorded). */
  updated_by?: Actor;
  /** The title key as stored (`title_norm`, the guard's key): what a rename or delete must release. */
  titleNorm?: string;
  /** How many times a user changed the item (absent until the first change): what If-Match writes are conditional on. */
  rev?: number;
}

/** A bearer token of the API (its secret is never kept: only its hash, in the store). */
export interface TokenRecord {
  id: string;
  owner: { name: string; username: string };
  workspaces: string[];
  scopes: string[];
  created_at: string;
  expires_at?: string;
  revoked: boolean;
  /** Requests per second and burst; absent on tokens made before tokens carried limits (the defaults apply). */
  rate_limit?: { rate: number; burst: number };
}

/** One field a change moved: for a create `from` is null, for a delete `to` is. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  /** Which of `from` and `to` were cut to their first CUT_TEXT_BYTES bytes (absent: neither). */
  cut?: ('from' | 'to')[];
}

/** One entry, as answered (and as kept: the store adds its keys and expiry around it). */
export interface ActivityEntry {
  id: string;
  /** The outbound event type (`Project Updated`). */
  type: string;
  occurred_at: string;
  actor: { username: string } | null;
  company_slug: string;
  /** The project the change belongs to (its own change, or a label on one of its tasks or in its set). */
  project_slug: string | null;
  /** That project's stable id: a slug can be taken again after a delete, an id never (null: no project, or recorded before ids were). */
  project_id: string | null;
  /** The project as it was then (project changes). */
  project: { slug: string; name: string } | null;
  /** The label as it was then (label changes, attaches and detaches). */
  label: { id: number; slug: string; title?: string; color?: string } | null;
  /** The task a label went on or came off (absent for a project's label set). */
  task_uuid: string | null;
  changes: FieldChange[];
  /** The bus event's `event_id`, which is also the webhook body's `data.event_id`. */
  event_id: string;
  /** The X-Request-Id answered to the request that made the change (null: made by the service, or before requests were recorded). */
  request_id: string | null;
  idempotency_key: string | null;
  /** Its place in the workspace's order (1, 2, 3...: the order entries became readable); null for entries recorded before places existed. */
  sequence: number | null;
  /** When it became readable (its place's time): never before `occurred_at`'s request, often a little after. */
  recorded_at: string;
}
