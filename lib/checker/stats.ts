import { ItemType, keys } from '#store/keys';
import { STAT_NAMES } from '#store/projectStats';

type Item = Record<string, any>;

/**
 * A project's stats are its item's base plus what the stream kept for it (functions/commons/store/projectStats.ts):
 * the checker and the repair compare the sum with what the links and the inbound states say.
 */

const slugOf = (i: Item) => `${i.workspace}#${i.type === ItemType.project ? i.slug : i.project_slug}`;

/** The kept stats item of each live project (one naming another project of the slug counts for nothing). */
export function keptStatsOf(items: Item[]): Map<string, Item> {
  const live = new Map(items.filter((i) => i.type === ItemType.project).map((p) => [slugOf(p), p.id as string]));
  return new Map(
    items.filter((i) => i.type === ItemType.projectStats && live.get(slugOf(i)) === i.project_id).map((k) => [k.project_id, k]),
  );
}

/** The projects with their stats whole. */
export function projectsWithKeptStats(items: Item[]): Item[] {
  const kept = keptStatsOf(items);
  return items
    .filter((i) => i.type === ItemType.project)
    .map((p) => {
      const k = kept.get(p.id);
      return k ? { ...p, ...Object.fromEntries(STAT_NAMES.map((n) => [n, (p[n] ?? 0) + (k[n] ?? 0)])) } : p;
    });
}

/** A kept stats item that is no live project's (its project's delete takes it): the stream's next write replaces it. */
export function staleStatsViolations(items: Item[]): string[] {
  const kept = new Set([...keptStatsOf(items).values()]);
  return items
    .filter((i) => i.type === ItemType.projectStats && !kept.has(i))
    .map(
      (i) =>
        `kept stats ${i.PK} / ${i.SK} name project ${i.project_id}, which is not the live project of that slug; npm run repair removes them`,
    );
}

/** The kept stats item that makes `project`'s stats `truth` (its base stays): what the repair writes. */
export function keptStatsItem(project: Item, base: Item, truth: Record<string, number>): Item {
  return {
    ...keys.projectStats(project.workspace, project.slug),
    type: ItemType.projectStats,
    workspace: project.workspace,
    project_id: project.id,
    project_slug: project.slug,
    ...Object.fromEntries(STAT_NAMES.map((n) => [n, (truth[n] ?? project[n]) - (base[n] ?? 0)])),
  };
}
