import { projectFullView } from '#wire/projectViews';
import { decodeProject } from '#store/projectItem';
import type { Item } from '#store/query';

/** A project's public fields, its stats left out (counters are derived, not changes anyone made). */
function projectFields(item: Item) {
  const { stats: _derived, ...fields } = projectFullView(decodeProject(item));
  return fields;
}

/**
 * Whether a project item's change is one a user made (its `Project Updated` event), not a counter's move on it: a
 * user's change moves updated_at or a public field (two updates within one millisecond keep updated_at); the counter
 * updates of the version before (on the item) move neither.
 */
export const userChanged = (before: Item, after: Item): boolean =>
  before.updated_at !== after.updated_at || JSON.stringify(projectFields(after)) !== JSON.stringify(projectFields(before));
