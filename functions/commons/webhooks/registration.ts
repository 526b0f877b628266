import { randomBytes } from 'node:crypto';
import { changedSinceRead, ValidationFailed, type Precondition } from '#domain/errors';
import { readProject } from '#store/projects';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { putNewWebhook, rewriteWebhook } from '#webhooks/store/webhooks';
import { type TransactItem, withOptimisticRetry } from '#store/transactions';
import { countedKinds, countTries } from '#store/workspaceCounts';
import { resolutionProblem, targetPolicy, urlProblem } from './addresses';
import type { CarryGuard, WebhookRecord } from './entities';
import { MAX_WEBHOOKS_PER_WORKSPACE } from './limits';
import { newSecret } from './signing';
import { getWebhook, sealSecret } from './subscriptions';

/**
 * Registering and changing a webhook: what its URL and project must be (the request-forgery rules
 * and the DNS they ask stay out of the routes that only read, delete or rotate).
 */

export interface WebhookFields {
  url: string;
  events: string[];
  description?: string | undefined;
  project_slug?: string | null | undefined;
}

/** The request-forgery rules, at save time: the URL's form, then every address its host resolves to now. */
async function checkTarget(url: string): Promise<void> {
  const policy = targetPolicy();
  const problem = urlProblem(url, policy) ?? (await resolutionProblem(new URL(url).hostname, policy));
  if (problem !== undefined) throw ValidationFailed.of('url', problem);
}

async function checkProject(ws: string, slug: string | null | undefined): Promise<void> {
  if (slug && !(await readProject(ws, slug)))
    throw ValidationFailed.of('project_slug', `"${slug}" is not a project of this workspace; name an existing project's slug`);
}

/** The webhook, created, and its secret in clear (the record holds it sealed): the one time it is shown. */
export async function createWebhook(ws: string, fields: WebhookFields): Promise<{ webhook: WebhookRecord; secret: string }> {
  await checkTarget(fields.url);
  await checkProject(ws, fields.project_slug);
  // The workspace's count holds the limit against concurrent creates (a create that lost it reads again).
  const count = countTries();
  return withOptimisticRetry(async () => {
    const part = await count.in(countedKinds.webhooks, ws, MAX_WEBHOOKS_PER_WORKSPACE);
    if (part === 'full')
      throw ValidationFailed.of('url', `cannot be added: a workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first`);
    return count.tried(() => putWebhook(ws, fields, part));
  });
}

async function putWebhook(ws: string, fields: WebhookFields, count: TransactItem): Promise<{ webhook: WebhookRecord; secret: string }> {
  const now = new Date().toISOString();
  const id = `wh_${randomBytes(12).toString('hex')}`;
  const secret = newSecret();
  const record: WebhookRecord = {
    id,
    workspace: ws,
    url: fields.url,
    events: fields.events,
    description: fields.description ?? '',
    ...(fields.project_slug ? { project_slug: fields.project_slug } : {}),
    active: true,
    secret: await sealSecret({ workspace: ws, id }, secret),
    created_at: now,
    updated_at: now,
    url_set_at: now,
    rev: 0,
  };
  await putNewWebhook(record, count);
  return { webhook: record, secret };
}

export type WebhookPatch = Partial<WebhookFields> & { active?: boolean | undefined };

/** What a patch changes of `current`: the attributes to set and those to remove (nothing when it changes nothing). */
function changesOf(current: WebhookRecord, patch: WebhookPatch, now: string) {
  const set: Partial<WebhookRecord> = {};
  const remove: (keyof WebhookRecord)[] = [];
  if (patch.url !== undefined && patch.url !== current.url) Object.assign(set, { url: patch.url, url_set_at: now });
  if (patch.events !== undefined && patch.events.join('\n') !== current.events.join('\n')) set.events = patch.events;
  if (patch.description !== undefined && patch.description !== current.description) set.description = patch.description;
  if (patch.project_slug === null && current.project_slug !== undefined) remove.push('project_slug');
  if (patch.project_slug && patch.project_slug !== current.project_slug) set.project_slug = patch.project_slug;
  if (patch.active !== undefined && patch.active !== current.active) {
    set.active = patch.active;
    // Turned on again: a fresh start, the failures that turned it off forgotten. Both removed whatever was
    // read: a ping failing meanwhile (which marks the run without moving the revision) is forgotten too.
    if (patch.active) remove.push('deactivated_reason', 'failing_since');
  }
  return { set, remove };
}

/** Whether a change points the webhook at other data or another receiver: its URL, its events or its project filter. */
const redirects = ({ set, remove }: ReturnType<typeof changesOf>) =>
  set.url !== undefined || set.events !== undefined || set.project_slug !== undefined || remove.includes('project_slug');

/**
 * A partial update. Only what changes is written, conditional on the revision read, so concurrent
 * changes never lose each other's fields (a lost race reads again); with If-Match, a change in
 * between is a 412. A patch that changes nothing writes nothing. A change of URL, events or project
 * filter passes `mayCarry` with every type the webhook carries before and after it: deliveries
 * already waiting go to the new URL, and the caller may read what both sets carry.
 */
export async function updateWebhook(
  ws: string,
  id: string,
  patch: WebhookPatch,
  mayCarry: CarryGuard,
  precondition?: Precondition<WebhookRecord>,
) {
  if (patch.url !== undefined) await checkTarget(patch.url);
  if (patch.project_slug) await checkProject(ws, patch.project_slug);
  return withRetries<WebhookRecord>(RETRY.conflicts, 'The webhook is being changed by other requests; retry shortly.', async () => {
    const current = await getWebhook(ws, id);
    await precondition?.(current);
    const now = new Date().toISOString();
    const changes = changesOf(current, patch, now);
    const { set, remove } = changes;
    if (Object.keys(set).length === 0 && remove.length === 0) return current;
    if (redirects(changes)) mayCarry([...current.events, ...(set.events ?? [])]);
    // Saved before the URL's time was kept: its last change is when the URL may last have changed, kept as that from now on.
    const since = current.url_set_at === undefined && set.url === undefined ? { url_set_at: current.updated_at } : {};
    const updated = await rewriteWebhook(current, { ...set, ...since, updated_at: now }, remove);
    if (updated) return updated;
    if (!precondition) return AGAIN;
    await getWebhook(ws, id);
    throw changedSinceRead();
  });
}
