import type { ProjectRecord } from '#domain/entities';
import { getItems } from '#store/batches';
import { str } from '#store/codec';
import { ItemType, keys } from '#store/keys';
import { keptOf, withKeptStats } from '#store/projectStats';
import type { Change } from '#store/streamRecords';

/** A project with its stats whole, as an event built now shows it. */
export type StatsOf = (project: ProjectRecord) => ProjectRecord;

/**
 * The stats the stream keeps off the project items (store/projectStats.ts) of the batch's updated projects (`updates`:
 * the changes of project items that are events), read at once: a `Project Updated` event shows a project's stats whole, as they are when it is built (its item's images
 * carry only their base). Created and duplicated projects start fresh, and a deleted one's job carries them whole.
 */
export async function keptStatsOf(updates: Change[]): Promise<StatsOf> {
  const changed = updates.filter((c) => c.type === ItemType.project && c.after);
  const slugs = [...new Map(changed.map((c) => [`${str(c.after!, 'workspace')}#${str(c.after!, 'slug')}`, c.after!])).values()];
  const items = slugs.length ? await getItems(slugs.map((p) => keys.projectStats(str(p, 'workspace'), str(p, 'slug')))) : [];
  const kept = new Map(items.map((i) => [`${str(i, 'workspace')}#${str(i, 'project_slug')}`, keptOf(i)]));
  return (project) => withKeptStats(project, kept.get(`${project.workspace}#${project.slug}`));
}
