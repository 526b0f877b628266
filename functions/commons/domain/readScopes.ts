import { CHANGE_TYPES, type ChangeType, changeTypeNamed, isOperationalType } from './eventNames';
import { SCOPES, type Scope } from './scopes';

/**
 * A scope is a promise about data: what each change carries, and so the read scope a token needs to
 * receive it by any path (a webhook it controls, the history). A project's own changes carry the
 * project; a label's, and its attaches and detaches, carry the label.
 */
export const READ_SCOPE_OF_CHANGE: Readonly<Record<ChangeType, Scope>> = {
  'Project Created': 'projects:read',
  'Project Updated': 'projects:read',
  'Project Duplicated': 'projects:read',
  'Project Deleted': 'projects:read',
  'Label Created': 'labels:read',
  'Label Updated': 'labels:read',
  'Label Deleted': 'labels:read',
  'Label Attached': 'labels:read',
  'Label Detached': 'labels:read',
};

/** The change types a token with these scopes may read. */
export function readableChanges(scopes: readonly Scope[]): ChangeType[] {
  return CHANGE_TYPES.filter((type) => scopes.includes(READ_SCOPE_OF_CHANGE[type]));
}

/**
 * The read scopes a webhook subscribed to `events` (bus names, dotted names or `*`) needs, in the
 * order of SCOPES: what it carries. The operational types carry a webhook's health, which
 * webhooks:read already covers.
 */
export function readScopesCarried(events: readonly string[]): Scope[] {
  const needed = new Set<Scope>();
  for (const event of events) {
    if (event === '*') for (const type of CHANGE_TYPES) needed.add(READ_SCOPE_OF_CHANGE[type]);
    else if (!isOperationalType(event)) {
      const type = changeTypeNamed(event);
      if (type !== undefined) needed.add(READ_SCOPE_OF_CHANGE[type]);
    }
  }
  return SCOPES.filter((scope) => needed.has(scope));
}
