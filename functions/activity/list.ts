import { endpoint, ok, type Reply } from '#http/endpoint';
import { FOREIGN_CONTEXTS } from '#domain/activity';
import { listActivity } from '#domain/activityReads';
import { listActivitiesInput } from '#wire/activitySchemas';
import { pageMeta, pageRequest } from '#wire/validation';

/**
 * GET /activities: the workspace's history (from_context=company) or a project's (from_context=project
 * with project_slug), newest first, a page at a time. Every page carries an ETag (of its entries), so a client that
 * polls with If-None-Match gets 304 until something new happens. Sprint and user-story contexts belong
 * to other services: an empty page.
 */
export const handler = endpoint({
  scope: 'activity:read',
  input: listActivitiesInput(),
  run: async ({ query }, { workspace }): Promise<Reply> => {
    const req = pageRequest(query);
    if (FOREIGN_CONTEXTS.has(query.from_context)) return { ...ok([], pageMeta(req, null)), tagged: true };
    const page = await listActivity(
      workspace,
      {
        context: query.from_context === 'project' ? 'project' : 'company',
        projectSlug: query.project_slug,
        task: query.uuid,
        types: query.type,
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
