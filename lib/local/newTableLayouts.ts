import { serviceLayoutItem } from '#store/activityLayout';
import { COPIED, copiesLayoutItem } from '#store/copyLayouts';
import { labelGuardsLayoutItem } from '#store/labelGuardLayout';
import { labelLinksLayoutItem } from '#store/labelLinkLayout';
import { labelTallyLayoutItem } from '#store/labelTallyLayout';
import { statsLayoutItem } from '#store/statsLayout';
import { taskShardsLayoutItem } from '#store/taskShardLayout';
import { tombstonesLayoutItem } from '#store/tombstoneLayout';
import { deliveriesLayoutItem } from '#webhooks/store/deliveryLayout';

/**
 * The service's LAYOUT items of a table the local tools make new: no version before this one wrote there, so histories,
 * deliveries, label links and tasks are spread from the first (no task to move), stats counted through the stream,
 * deletes marked, labels and projects copied, and title guards and label tallies in partitions of their own
 * (activityLayout.ts, deliveryLayout.ts, labelLinkLayout.ts, taskShardLayout.ts, projectStats.ts, tombstones.ts,
 * copies.ts, labelGuardLayout.ts, labelTallyLayout.ts). Pure: the local database module imports it (no store client).
 */
export function newTableLayoutItems(): Record<string, unknown>[] {
  const longAgo = new Date(0).toISOString();
  return [
    serviceLayoutItem(longAgo),
    deliveriesLayoutItem(longAgo),
    labelLinksLayoutItem(longAgo),
    statsLayoutItem(longAgo),
    tombstonesLayoutItem(longAgo),
    taskShardsLayoutItem(longAgo, longAgo),
    copiesLayoutItem(COPIED.label, longAgo, longAgo),
    copiesLayoutItem(COPIED.project, longAgo, longAgo),
    labelGuardsLayoutItem(longAgo, longAgo),
    labelTallyLayoutItem(longAgo, longAgo),
  ];
}
