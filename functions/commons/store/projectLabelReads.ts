import { num } from './codec';
import { ItemType, keys } from './keys';
import { queryAll } from './query';
import { readTaskLayout } from './taskLayoutReads';
import { allSettled } from './settled';

/**
 * A project's use counters (how many of its tasks carry each label) and its label set, both in its collection's shard 0.
 * Once the table is rekeyed nothing else lies between their sort keys there (`LABELSET#`, `USE#`: the tasks live in the
 * other shards, taskShardLayout.ts), so one strongly consistent Query reads both; before, two.
 */
export async function readProjectLabelState(projectId: string): Promise<{ uses: Map<number, number>; set: number[] }> {
  const partition = keys.projectCollection(projectId);
  const items = (await readTaskLayout(false)).rekeyed
    ? await queryAll({ partition, sortBetween: [keys.projectLabelSkPrefix, `${keys.labelUseSkPrefix}\uffff`] })
    : (
        await allSettled([
          queryAll({ partition, sortPrefix: keys.labelUseSkPrefix }),
          queryAll({ partition, sortPrefix: keys.projectLabelSkPrefix }),
        ])
      ).flat();
  return {
    uses: new Map(items.filter((i) => i.type === ItemType.labelUse).map((i) => [num(i, 'label_id'), num(i, 'n')])),
    set: items.filter((i) => i.type === ItemType.projectLabel).map((i) => num(i, 'label_id')),
  };
}
