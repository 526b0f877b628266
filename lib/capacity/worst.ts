import { charCount, jsonByteLength } from '#domain/text';
import {
  MAX_DESCRIPTION,
  MAX_DESCRIPTION_BYTES,
  MAX_LABEL_TITLE,
  MAX_LABEL_TITLE_BYTES,
  MAX_LABELS_PER_TASK,
  MAX_PAGE_SIZE,
  MAX_PROJECT_NAME,
  MAX_PROJECT_NAME_BYTES,
  MAX_TASKS_PER_REQUEST,
} from '#domain/limits';
import { MAX_LOGGED_ATTEMPTS } from '#webhooks/entities';
import { seedDeliveries } from './worstDeliveries.ts';
import {
  MAX_DESCRIPTION as MAX_WEBHOOK_DESCRIPTION,
  MAX_DESCRIPTION_BYTES as MAX_WEBHOOK_DESCRIPTION_BYTES,
  MAX_EVENT_TYPES,
  MAX_URL_LENGTH,
  MAX_WEBHOOKS_PER_WORKSPACE,
} from '#webhooks/limits';
import { OUTBOUND_TYPES } from '#domain/eventNames';

/**
 * The routes at the limits the API accepts: a workspace of its own whose items are as large as the
 * rules let them be (names, descriptions and titles at their byte bounds, a task with the most labels,
 * a label on the most tasks a request names, a webhook's deliveries failed after 50 attempts), and each
 * route whose cost grows with its input asked for the largest answer it gives. npm run capacity
 * measures them as it measures the samples (docs/capacity.md, "At the limits").
 */
export const WORST = {
  workspace: 'capacity-limits',
  /** A full page of the largest projects, labels and deliveries. */
  page: MAX_PAGE_SIZE,
  /** Deliveries of the webhook: a log page's worth and as many again (what a recovery reads). */
  deliveries: 2 * MAX_PAGE_SIZE,
} as const;

/** A text at its bounds: the widest characters in bytes, then single letters, as long as both bounds allow. */
export function textAtLimits(maxChars: number, maxBytes: number, start = ''): string {
  // One character (a letter and seven 3-byte marks: eight UTF-16 units, the most one counts) of 22 bytes.
  const cluster = `e${'\u20D0'.repeat(7)}`;
  const room = (t: string) => ({ chars: maxChars - charCount(t), bytes: maxBytes - jsonByteLength(t) });
  // Clusters stand apart (none joins the next): their counts add up, so the text is measured once, not per cluster.
  const left = room(start);
  const n = Math.max(0, Math.min(Math.floor(left.chars / charCount(cluster)), Math.floor(left.bytes / jsonByteLength(cluster))));
  const text = start + cluster.repeat(n);
  const rest = room(text);
  const filled = text + 'x'.repeat(Math.max(0, Math.min(rest.chars, rest.bytes)));
  if (rest.chars < 0 || rest.bytes < 0 || room(filled).chars < 0 || room(filled).bytes < 0)
    throw new Error(`a text at the limits (${maxChars} characters, ${maxBytes} bytes) came out over them`);
  return filled;
}

/** One request at its worst: the route's name, and what it is sent. */
export interface WorstRequest {
  name: string;
  /** What makes it the worst, in the page's words. */
  scenario: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

/** What the requests at the limits are about. */
interface Targets {
  project: string;
  label: string;
  webhook: string;
  delivery: string;
}

type Sent = (name: string, path: string, query: Record<string, string>, body?: unknown) => Promise<{ data: unknown }>;

/** Changes of the measured project, for its history. */
const HISTORY_CHANGES = 10;

const task = (n: number) => `limits-task-${String(n).padStart(3, '0')}`;

/** The workspace at the limits, through the handlers (the deliveries' logs written as the deliverer writes them). */
export async function seedAtLimits(sent: Sent, webhookUrl: string): Promise<Targets> {
  const q = { company_slug: WORST.workspace };
  const projects: string[] = [];
  const [description, clientUuid] = [textAtLimits(MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES), textAtLimits(128, 512)];
  for (let i = 0; i < WORST.page; i++) {
    const name = textAtLimits(MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES, `Limits ${String(i).padStart(3, '0')} `);
    const made = (await sent('create-project', '/projects', {}, { ...q, name, description, client_uuid: clientUuid })) as {
      data: { slug: string };
    };
    projects.push(made.data.slug);
  }
  const labels: string[] = [];
  for (let i = 0; i < Math.max(WORST.page, MAX_LABELS_PER_TASK); i++) {
    const title = textAtLimits(MAX_LABEL_TITLE, MAX_LABEL_TITLE_BYTES, `L${String(i).padStart(3, '0')} `);
    labels.push(((await sent('create-label', '/projects-labels', q, { title, color: '0E8A16' })) as { data: { slug: string } }).data.slug);
  }
  const project = projects[0]!;
  const inProject = { ...q, project_slug: project };
  // One task with the most labels; the first label on the most tasks one request names.
  for (const label of labels.slice(0, MAX_LABELS_PER_TASK))
    await sent('attach-label', `/projects-labels/${label}/attach`, inProject, { task_uuid: task(0) });
  const tasks = Array.from({ length: MAX_TASKS_PER_REQUEST }, (_, n) => task(n + 1));
  await sent('attach-label', `/projects-labels/${labels[0]}/attach`, inProject, { task_uuids: tasks });
  // Changes of one project for its history, each entry carrying the project as it became (spread over its shards by
  // their places, the same from run to run in a workspace of its own).
  for (let v = 0; v < HISTORY_CHANGES; v++)
    await sent('update-project', `/projects/${project}`, q, {
      description: textAtLimits(MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES, `v${v} `),
    });
  const about = textAtLimits(MAX_WEBHOOK_DESCRIPTION, MAX_WEBHOOK_DESCRIPTION_BYTES);
  const hook = (await sent('create-webhook', '/webhooks', q, { url: webhookUrl, events: ['*'], description: about })) as {
    data: { id: string };
  };
  // The rest of the workspace's webhooks, each as large as one gets (turned off: nothing is sent to them).
  const events = OUTBOUND_TYPES.slice(0, MAX_EVENT_TYPES);
  for (let i = 1; i < MAX_WEBHOOKS_PER_WORKSPACE; i++) {
    const padded = `${webhookUrl}/${i}?${'p'.repeat(MAX_URL_LENGTH)}`.slice(0, MAX_URL_LENGTH);
    const made = (await sent('create-webhook', '/webhooks', q, { url: padded, events, description: about })) as { data: { id: string } };
    await sent('update-webhook', `/webhooks/${made.data.id}`, q, { active: false });
  }
  const delivery = await seedDeliveries(WORST.workspace, hook.data.id, WORST.deliveries);
  return { project, label: labels[0]!, webhook: hook.data.id, delivery };
}

/** Each route whose cost grows with its input, at the largest answer it gives. */
export function requestsAtLimits(t: Targets): WorstRequest[] {
  const q = { company_slug: WORST.workspace };
  const inProject = { ...q, project_slug: t.project };
  const page = String(WORST.page);
  const biggest = 'names and descriptions at their byte bounds';
  return [
    { name: 'list-projects', scenario: `limit=${page}: ${page} projects, ${biggest}`, path: '/projects', query: { ...q, limit: page } },
    {
      name: 'list-projects',
      scenario: `status=in_progress&limit=${page}, the same`,
      path: '/projects',
      query: { ...q, status: 'in_progress', limit: page },
    },
    {
      name: 'search',
      scenario: `q=limits&limit=${page}, the same`,
      path: '/search',
      query: { ...q, q: 'limits', categories: 'projects', limit: page },
    },
    { name: 'get-project', scenario: `one project, ${biggest}`, path: `/projects/${t.project}`, query: q },
    { name: 'project-stats', scenario: 'the same', path: `/projects/${t.project}/stats`, query: q },
    { name: 'duplicate-project', scenario: 'the same', path: `/projects/${t.project}/duplicate`, query: q },
    {
      name: 'update-project',
      scenario: 'its description replaced by another at its bound',
      path: `/projects/${t.project}`,
      query: q,
      body: { description: textAtLimits(MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES, 'v3 ') },
    },
    { name: 'list-labels', scenario: `limit=${page}: titles at their byte bound`, path: '/projects-labels', query: { ...q, limit: page } },
    {
      name: 'list-labels',
      scenario: `a task's ${MAX_LABELS_PER_TASK} labels`,
      path: '/projects-labels',
      query: { ...inProject, task_uuid: task(0) },
    },
    {
      name: 'project-labels',
      scenario: `a project whose tasks carry ${MAX_LABELS_PER_TASK} labels`,
      path: '/task-labels',
      query: inProject,
    },
    {
      name: 'label-tasks',
      scenario: `a label on ${MAX_TASKS_PER_REQUEST + 1} tasks`,
      path: `/projects-labels/${t.label}/tasks`,
      query: inProject,
    },
    {
      name: 'attach-label',
      scenario: `task_uuids: ${MAX_TASKS_PER_REQUEST} new tasks`,
      path: `/projects-labels/${t.label}/attach`,
      query: inProject,
      body: { task_uuids: Array.from({ length: MAX_TASKS_PER_REQUEST }, (_, n) => task(200 + n)) },
    },
    {
      name: 'detach-label',
      scenario: `task_uuids: the same ${MAX_TASKS_PER_REQUEST}`,
      path: `/projects-labels/${t.label}/detach`,
      query: inProject,
      body: { task_uuids: Array.from({ length: MAX_TASKS_PER_REQUEST }, (_, n) => task(200 + n)) },
    },
    {
      name: 'list-webhooks',
      scenario: `${MAX_WEBHOOKS_PER_WORKSPACE} webhooks, URLs, types and descriptions at their bounds`,
      path: '/webhooks',
      query: q,
    },
    {
      name: 'list-webhook-deliveries',
      scenario: `limit=${page}: the longest answers logged`,
      path: `/webhooks/${t.webhook}/deliveries`,
      query: { ...q, limit: page },
    },
    {
      name: 'get-webhook-delivery',
      scenario: `a delivery with ${MAX_LOGGED_ATTEMPTS} attempts logged`,
      path: `/webhooks/${t.webhook}/deliveries/${t.delivery}`,
      query: q,
    },
    {
      name: 'recover-webhook',
      scenario: `${WORST.deliveries} failed deliveries, the longest answers logged`,
      path: `/webhooks/${t.webhook}/recover`,
      query: q,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    },
    {
      name: 'list-activities',
      scenario: `a project's history, limit=${page}: ${HISTORY_CHANGES} changes, ${biggest}`,
      path: '/activities',
      query: { ...inProject, from_context: 'project', limit: page },
    },
    {
      name: 'list-activities',
      scenario: 'the same, type=project.updated',
      path: '/activities',
      query: { ...inProject, from_context: 'project', type: 'project.updated', limit: page },
    },
  ];
}
