import { ItemType, keys } from '#store/keys';

type Item = Record<string, any>;

/**
 * The history's items where a read of the history finds them (functions/commons/store/activityKeys.ts): an
 * entry in one of its workspace's shards or in a shard of its project's or its task's copy (or, for entries
 * of before ids were kept, its project's slug partition); an event's mark in the shard it is made in now, or
 * in the one it was made in before marks had 8 (a record delivered again is checked in both). Anything
 * else is an item no read reaches: said as a violation.
 */
export function historyViolations(items: Item[]): string[] {
  const v: string[] = [];
  for (const i of items) {
    if (i.type === ItemType.activity && !entryPartitions(i).includes(i.PK))
      v.push(`history entry ${i.PK} / ${i.SK} is in a partition no read of the history reads`);
    if (i.type === ItemType.activityMark && !markPartitions(i).includes(i.PK))
      v.push(`history mark ${i.PK} / ${i.SK} is in a shard where a record delivered again is not looked for`);
  }
  return v;
}

function entryPartitions({ workspace: ws, entry }: Item): string[] {
  return [
    ...keys.activityShards(ws),
    ...(entry?.project_id ? keys.projectActivityPartitions(ws, entry.project_id) : []),
    ...(entry?.project_slug ? [keys.legacyProjectActivityPartition(ws, entry.project_slug)] : []),
    ...(entry?.task_uuid ? keys.taskActivityPartitions(ws, entry.task_uuid) : []),
  ];
}

function markPartitions({ workspace: ws, SK }: Item): string[] {
  const eventId = String(SK).slice('EVENT#'.length);
  return [keys.activityMark(ws, eventId).PK, keys.earlierActivityMark(ws, eventId)?.PK ?? []].flat();
}
