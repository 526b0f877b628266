import { keys, LABEL_LINK_SHARDS } from '#store/keys';
import { labelShardOf } from '#store/labelLinkLayout';

type Item = Record<string, any>;

/**
 * Each link's label side where its task side says it is (functions/commons/store/labelLinkLayout.ts): in the shard of
 * the label's collection the task link names (`label_shard`, one of 1 to LABEL_LINK_SHARDS - 1; absent for the first),
 * where a detach deletes it, and nowhere else (one left in another shard would outlive the detach). A half without the
 * other is said by the pairing of halves (invariants.ts).
 */
export function labelLinkShardViolations(taskLinks: Item[], labelLinks: Item[], linkId: (i: Item) => string): string[] {
  const labelSides = new Map<string, Item[]>();
  for (const l of labelLinks) labelSides.set(linkId(l), [...(labelSides.get(linkId(l)) ?? []), l]);
  const v: string[] = [];
  for (const [id, sides] of labelSides)
    if (sides.length > 1)
      v.push(
        `label link ${id} has a label side in each of ${sides
          .map((s) => s.PK)
          .sort()
          .join(', ')}`,
      );
  for (const t of taskLinks) {
    const shard = t.label_shard;
    if (shard !== undefined && !(Number.isInteger(shard) && shard >= 1 && shard < LABEL_LINK_SHARDS)) {
      v.push(`task link ${linkId(t)} names label shard ${JSON.stringify(shard)}, not one of 1 to ${LABEL_LINK_SHARDS - 1}`);
      continue;
    }
    const sides = labelSides.get(linkId(t)) ?? [];
    const expected = keys.labelLink(t.workspace, t.label_id, t.project_id, t.task_uuid, labelShardOf(t)).PK;
    for (const side of sides)
      if (side.PK !== expected) v.push(`label link ${linkId(t)} is in ${side.PK}, where its task-side half says ${expected}`);
  }
  return v;
}
