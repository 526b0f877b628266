import { keys } from './keys';
import { queryAll } from './paging';
import { slugFamilyPrefix } from './slug';

/**
 * The slugs of a workspace that start like `base` (projects or labels). Read after a conditional
 * write found `base` taken, to pick the next free `-N` suffix in one more write.
 */
export async function takenSlugs(ws: string, kind: 'project' | 'label', base: string): Promise<string[]> {
  const skPrefix = kind === 'project' ? keys.projectSkPrefix : keys.labelSkPrefix;
  const items = await queryAll(keys.workspace(ws), `${skPrefix}${slugFamilyPrefix(base)}`);
  return items.map((item) => (item.SK as string).slice(skPrefix.length));
}
