import { ItemType } from '#store/keys';

type Item = Record<string, any>;

/**
 * The marks deleted projects and labels leave in their collections' shards (store/tombstones.ts): a mark is of a project
 * or label that is gone (ids are never reused, so a live one of its id is a bug), and it expires (its `ttl`). A set of
 * marks may be partial: TTL deletes them one by one.
 */
export function tombstoneViolations(items: Item[]): string[] {
  const live = new Set(
    items.flatMap((i) =>
      i.type === ItemType.project ? [`project ${i.id}`] : i.type === ItemType.label ? [`label ${i.workspace}#${i.id}`] : [],
    ),
  );
  const v: string[] = [];
  for (const mark of items.filter((i) => i.type === ItemType.tombstone)) {
    const of = mark.label_id !== undefined ? `label ${mark.workspace}#${mark.label_id}` : `project ${mark.project_id}`;
    if (live.has(of)) v.push(`tombstone ${mark.PK} / ${mark.SK} marks ${of} as deleted, but it exists`);
    if (typeof mark.ttl !== 'number') v.push(`tombstone ${mark.PK} / ${mark.SK} never expires (no ttl)`);
  }
  return v;
}
