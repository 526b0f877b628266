import { listActivity } from '#domain/activityReads';
import { ACTIVITY_SHARDS, PROJECT_ACTIVITY_SHARDS } from '#store/activityKeys';
import { recordActivity } from '#events/activity';
import type { OutboundEvent } from '#events/outbound';
import { describeCalls, metered, type Usage } from './capacity.ts';
import type { Workspace } from './harness.ts';
import { fmt, log, percentile, table } from './stats.ts';

/**
 * The history: how soon a change can be read back (the write's answer to the first GET /activities that
 * shows its entry, through the local stream processor: `npm start`'s path), and what an entry and a
 * page of the history cost (in process, metered).
 */
export interface ActivityBenchRow {
  entries: number;
  freshnessMs: { p50: number; p99: number; max: number };
  /** Reads of GET /activities made while waiting, per entry. */
  pollsPerEntry: number;
  perEntry: { projectChange: Usage; labelChange: Usage };
  perPage: { company: Usage; project: Usage; limit: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureActivity(opts: { apiUrl: string; w: Workspace; entries: number }): Promise<ActivityBenchRow> {
  const { apiUrl, w } = opts;
  const headers = { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' };
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}${path.includes('?') ? '&' : '?'}company_slug=${w.ws}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as { data: any };
  };
  const freshness: number[] = [];
  let polls = 0;
  for (let i = 0; i < opts.entries; i++) {
    const title = `History bench ${i}`;
    await send('POST', '/projects-labels', { title, color: '0055AA' });
    const answered = performance.now();
    for (;;) {
      polls++;
      const page = await send('GET', '/activities?from_context=company&type=label.created&limit=1');
      if (page.data[0]?.label?.title === title) break;
      await sleep(2);
    }
    freshness.push(performance.now() - answered);
  }
  log(
    `history: ${freshness.length} entries, readable after p50 ${fmt(percentile(freshness, 50), 1)} ms, p99 ${fmt(percentile(freshness, 99), 1)} ms`,
  );

  // A project with a page of its own history, for the page costs.
  const project = (await send('POST', '/projects', { name: 'History Bench' })).data.slug as string;
  for (let i = 0; i < 60; i++) await send('PUT', `/projects/${project}`, { description: `revision ${i}` });
  await send('GET', '/projects'); // the last update's entry is written while this answers; the loop below waits for it
  const limit = 50;
  for (;;) {
    const page = await send('GET', `/activities?from_context=project&project_slug=${project}&limit=1`);
    if (page.data[0]?.changes?.[0]?.to === 'revision 59') break;
    await sleep(5);
  }
  const at = new Date().toISOString();
  // Two events as the stream processor builds them, differing only in what the change was.
  const event = (detailType: 'Project Updated' | 'Label Attached', n: number, rest: Record<string, unknown>): OutboundEvent =>
    ({
      detailType,
      time: at,
      detail: { event_id: `bench-history-${n}`, company_slug: `${w.ws}-metered`, occurred_at: at, actor: { username: 'bench' }, ...rest },
      origin: { request_id: 'bench-request', idempotency_key: null },
    }) as OutboundEvent;
  const projectUpdated = event('Project Updated', 1, {
    data: { ...projectShape, description: 'after' },
    previous: { ...projectShape, description: 'before' },
  });
  const labelAttached = event('Label Attached', 2, {
    project_slug: 'bench-project',
    task_uuid: 'task-1',
    label: { id: 1, slug: 'bug', title: 'Bug', color: 'D73A4A' },
  });
  // A workspace's first entry makes its history's layout item (once): recorded first, unmetered, so the figures are any entry's.
  await recordActivity([event('Project Updated', 0, { data: projectShape, previous: projectShape })]);
  const projectChange = (await metered(() => recordActivity([projectUpdated]))).usage;
  const labelChange = (await metered(() => recordActivity([labelAttached]))).usage;
  const company = (await metered(() => listActivity(w.ws, { context: 'company', order: 'desc' }, { limit }))).usage;
  const ofProject = (await metered(() => listActivity(w.ws, { context: 'project', projectSlug: project, order: 'desc' }, { limit }))).usage;
  return {
    entries: freshness.length,
    freshnessMs: { p50: percentile(freshness, 50), p99: percentile(freshness, 99), max: Math.max(...freshness) },
    pollsPerEntry: polls / freshness.length,
    perEntry: { projectChange, labelChange },
    perPage: { company, project: ofProject, limit },
  };
}

const projectShape = {
  slug: 'bench-project',
  name: 'Bench Project',
  description: '',
  logo: null,
  visibility: 'public' as const,
  is_private: false,
  recurring: false,
  owner: { name: 'Bench', username: 'bench' },
  status: 'in_progress' as const,
  created_at: new Date(0).toISOString(),
  settings: { default_workflow: 'kanban' as const, task_prefix: 'BP' },
  stats: { tasks_count: 0, completed_count: 0, open_count: 0, members_count: 1, sprints_count: 0, labels_count: 0 },
};

export function renderActivity(r: ActivityBenchRow | undefined): string {
  if (!r) return '';
  const use = (u: Usage) =>
    `${fmt(u.calls, 0)} call${u.calls === 1 ? '' : 's'} (${describeCalls(u)}), ${fmt(u.rcu, 1)} RCU, ${fmt(u.wcu, 1)} WCU`;
  return `
### The history: how soon a change can be read back, and what it costs

${r.entries} labels created one after another through the local API, each followed by \`GET /activities\` (its first
page, \`type=label.created&limit=1\`) every 2 ms until it shows the label (\`test/bench/activity.ts\`): from the create's
answer to the first read that has its entry, through the table's stream and the stream processor (\`npm start\`'s
path; ${fmt(r.pollsPerEntry, 1)} reads per entry while waiting):

${table(['entries', 'p50', 'p99', 'max'], [[r.entries, `${fmt(r.freshnessMs.p50, 1)} ms`, `${fmt(r.freshnessMs.p99, 1)} ms`, `${fmt(r.freshnessMs.max, 1)} ms`]])}

Metered in process: an entry of a project's change (the workspace's position and layout read, then one transaction: the position's
move, the event's mark, the entry in a shard of the workspace's history and in one of the project's, and a create's slug
pointer) ${use(r.perEntry.projectChange)}; of a label attached to a task (the task's copy too) ${use(r.perEntry.labelChange)}.
A page of ${r.perPage.limit} entries: of the workspace's history (its ${ACTIVITY_SHARDS} shards read and merged) ${use(r.perPage.company)};
of a project's (its ${PROJECT_ACTIVITY_SHARDS}) ${use(r.perPage.project)}. docs/capacity.md counts the same writes per route.
`;
}
