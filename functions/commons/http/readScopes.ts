import { CHANGE_TYPES, type ChangeType } from '#domain/eventNames';
import { READ_SCOPE_OF_CHANGE, readableChanges, readScopesCarried } from '#domain/readScopes';
import { forbidden } from '#wire/problems';
import { type Principal, requireScopes } from './principal';

/**
 * What a token may receive by the paths that carry data of every kind (a webhook, the history): the read
 * scopes of that data, beside the route's own scope (domain/readScopes.ts). Only the routes of those paths
 * load it.
 */

/**
 * The change types whose entries the token may read in the history, or undefined when it may read
 * every one (the query then needs no filter); `asked` (the types a query names) must all be among them.
 * A 403 for a token that may read none, or for a type asked whose read scope it lacks.
 */
export function readableHistory(p: Principal, asked: readonly ChangeType[] | undefined): ChangeType[] | undefined {
  if (asked?.length) requireScopes(p, [...new Set(asked.map((t) => READ_SCOPE_OF_CHANGE[t]))], `which entries of the types asked for need`);
  const readable = readableChanges(p.scopes);
  if (readable.length === 0)
    throw forbidden(
      'This token lacks the projects:read and labels:read scopes: the history shows each entry only to a token that may read its subject.',
    );
  return readable.length === CHANGE_TYPES.length ? undefined : readable;
}

/**
 * Whether the token sees this webhook's URL whole: where it may point it elsewhere (webhooks:write and the read
 * scopes of what the webhook carries, as `mayCarry` asks), so could set it; else without query or credentials.
 */
export const seesWholeUrl = (p: Principal, webhook: { events: readonly string[] }): boolean =>
  p.scopes.includes('webhooks:write') && readScopesCarried(webhook.events).every((scope) => p.scopes.includes(scope));

/**
 * A guard for a webhook that carries `events` (its types, or `*`): the token must hold the read scope of
 * each kind of data they carry, so that no one points a webhook at data the token could not read itself.
 */
export const mayCarry =
  (p: Principal) =>
  (events: readonly string[]): void =>
    requireScopes(p, readScopesCarried(events), `which the webhook's events (${events.join(', ')}) carry`);
