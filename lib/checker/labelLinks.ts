import { keys } from '#store/keys';
import { labelShardOf } from '#store/labelLinkLayout';

type Item = Record<string, any>;

/**
 * Each link's label side where its task side says it is (functions/commons/store/labelLinkLayout.ts): in the shard of
 * the label's collection the task link names (`label_shard`, absent for the first), where a detach deletes it. One
 * anywhere else would outlive its detach. A half without the other is said by the pairing of halves (invariants.ts).
 */
export function labelLinkShardViolations(taskLinks: Item[], labelLinks: Item[], linkId: (i: Item) => string): string[] {
  const labelSides = new Map(labelLinks.map((l) => [linkId(l), l]));
  const v: string[] = [];
  for (const t of taskLinks) {
    const side = labelSides.get(linkId(t));
    if (side === undefined) continue;
    const expected = keys.labelLink(t.workspace, t.label_id, t.project_id, t.task_uuid, labelShardOf(t)).PK;
    if (side.PK !== expected) v.push(`label link ${linkId(t)} is in ${side.PK}, where its task-side half says ${expected}`);
  }
  return v;
}
