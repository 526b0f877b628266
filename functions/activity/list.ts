import { endpoint, ok, type Reply } from '#http/endpoint';
import { FOREIGN_CONTEXTS } from '#domain/activity';
import { listActivity } from '#domain/activityReads';
import { ValidationFailed } from '#domain/errors';
import { readableHistory } from '#http/readScopes';
import { listActivitiesInput } from '#wire/activitySchemas';
import { pageMeta, pageRequest } from '#wire/validation';

const PAGE_WITH_PARTIAL_SCOPES =
  'cannot be used by a token that reads only some kinds of entries (projects:read or labels:read alone): its pages are filtered and may stop short; follow meta.next_cursor';

/**
 * GET /activities: the workspace's history (from_context=company) or a project's (from_context=project
 * with project_slug), newest first, a page at a time. Every page carries an ETag (of its entries), so a client that
 * polls with If-None-Match gets 304 until something new happens. Sprint and user-story contexts belong
 * to other services: an empty page. A token sees the entries whose subject it may read: a project's
 * with projects:read, a label's and its links' with labels:read.
 */
export const handler = endpoint({
  scope: 'activity:read',
  input: listActivitiesInput(),
  run: async ({ query }, { workspace, principal }): Promise<Reply> => {
    const req = pageRequest(query);
    // Only entries whose subject the token may read: a token without one of the read scopes gets the others' entries alone.
    const readable = readableHistory(principal, query.type);
    if (readable !== undefined && query.page !== undefined && query.type === undefined)
      throw ValidationFailed.of('page', PAGE_WITH_PARTIAL_SCOPES);
    if (FOREIGN_CONTEXTS.has(query.from_context)) return { ...ok([], pageMeta(req, null)), tagged: true };
    const page = await listActivity(
      workspace,
      {
        context: query.from_context === 'project' ? 'project' : 'company',
        projectSlug: query.project_slug,
        projectId: query.project_id,
        task: query.uuid,
        types: query.type ?? readable,
        actor: query.actor,
        since: query.since,
        until: query.until,
        order: query.order ?? 'desc',
      },
      req,
    );
    return { ...ok(page.items, pageMeta(req, page.nextCursor)), tagged: true };
  },
});
