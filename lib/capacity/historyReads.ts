import { ACTIVITY_SHARDS, TASK_ACTIVITY_SHARDS } from '#store/activityKeys';

/**
 * The history's read shapes (docs/api.md, "Reading history"), measured beside the route's own sample (a
 * project's page): the workspace's newest page (its shards merged), a sync read from the start, the
 * same caught up (nothing new: what a poll, and its 304, costs), one task's entries and a filtered page.
 */
type Read = (name: string, path: string, query: Record<string, string>) => Promise<{ data: unknown }>;

export interface HistoryShape {
  row: string;
  scenario: string;
  query: Record<string, string>;
}

export async function historyReadShapes(read: Read, ws: string, task: string): Promise<HistoryShape[]> {
  const company = { company_slug: ws, from_context: 'company' };
  const sync = { ...company, order: 'asc', limit: '100' };
  // Caught up: a sync read followed to its empty page, whose token is the one a follower polls with.
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = (await read('list-activities', '/activities', { ...sync, ...(cursor ? { cursor } : {}) })) as unknown as {
      data: unknown[];
      meta: { next_cursor: string };
    };
    cursor = page.meta.next_cursor;
    if (page.data.length === 0) break;
  }
  return [
    {
      row: 'GET /activities (workspace)',
      scenario: `from_context=company: the newest 50, the ${ACTIVITY_SHARDS} shards merged`,
      query: company,
    },
    { row: 'GET /activities (sync)', scenario: 'from_context=company&order=asc&limit=100: a sync read from the start', query: sync },
    {
      row: 'GET /activities (caught up)',
      scenario: 'the same with its caught-up token: nothing new (what a poll and its 304 cost)',
      query: { ...sync, cursor: cursor! },
    },
    {
      row: 'GET /activities (task)',
      scenario: `uuid=${task}: one task's entries, its ${TASK_ACTIVITY_SHARDS} shards merged`,
      query: { ...company, uuid: task },
    },
    {
      row: 'GET /activities (filtered)',
      scenario: 'type=label.attached: a filtered page of the workspace',
      query: { ...company, type: 'label.attached' },
    },
  ];
}
