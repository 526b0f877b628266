import { ItemType, keys } from '#store/keys';
import { homeShard } from '#store/taskShardLayout';
import { awayFromHome, subjectOf } from './taskMoves.ts';

type Item = Record<string, any>;

/**
 * Where a project's task items are (store/taskShardLayout.ts): each task's and state's in its home or in shard 0, and,
 * once the table says it is rekeyed, in its home alone; one version and one state of each; no link a move marked
 * (`moved_to`: what `npm run rekey` leaves while it runs, or after it stopped midway:
 * run it again). Marked links are no links: the other checks leave them out (`liveLinks`).
 */
export function taskShardViolations(items: Item[]): string[] {
  const v: string[] = [];
  const rekeyed = items.some((i) => i.type === ItemType.taskShardsLayout && i.rekeyed_at !== undefined);
  // A deleted project's items go with its cascade, wherever they are.
  const deleting = new Set(items.filter((i) => i.type === ItemType.projectDeletion).map((i) => i.project_id));
  const shardOf = (i: Item) => keys.projectShards(i.project_id).indexOf(i.PK);
  const placed = items.filter((i) => [ItemType.taskLink, ItemType.taskVersion, ItemType.thingState].includes(i.type));
  for (const i of placed) {
    const shard = shardOf(i);
    const home = homeShard(subjectOf(i));
    if (shard !== 0 && shard !== home) v.push(`${i.type} ${i.PK} / ${i.SK} is in shard ${shard}, its home is ${home}`);
    else if (rekeyed && awayFromHome(i) && !deleting.has(i.project_id))
      v.push(`${i.type} ${i.PK} / ${i.SK} is in shard 0 of a rekeyed table; its home is ${home}`);
  }
  const seen = new Map<string, number>();
  for (const i of placed.filter((i) => i.type !== ItemType.taskLink)) {
    const id = `${i.project_id} ${i.SK}`;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  for (const [id, n] of seen) if (n > 1) v.push(`${id} is in ${n} shards`);
  // Its copy may be gone since (detached at home): the mark is what a finished move leaves none of.
  for (const l of placed.filter((i) => i.moved_to !== undefined && !deleting.has(i.project_id)))
    v.push(`task link ${l.PK} / ${l.SK} was copied home by a move that has not finished; npm run rekey finishes it`);
  return v;
}

/** The links of a scan, those a move marked left out (their copies at home stand for them). */
export const liveLinks = (items: Item[]): Item[] => items.filter((i) => i.type === ItemType.taskLink && i.moved_to === undefined);
