import { decodeCursor, encodeCursor, type CursorScope } from './cursors';
import { byTitle } from './labels';
import type { Page, PageRequest } from './paging';
import type { LabelRecord } from './entities';

/** What a label list's cursor holds: the workspace and the last label's place in the order. */
const PLACE = ['ws', 'title', 'id'] as const;

/**
 * Pages of a label list, which is read whole (the interface answers every label at once) and comes in
 * `byTitle` order (every label read gives it so: listLabels, projectLabels, labelsOfTask). The cursor names the last label's place in that order (its title and id), not an offset,
 * so a label created or deleted between two pages shifts nothing; like every cursor it is bound to
 * its query and workspace (`query` tells the lists apart). An edited or foreign cursor is a 422
 * here, before the list is read; the pager returned then cuts the page out of the list.
 */
export function labelPager(
  ws: string,
  query: string[],
  req: PageRequest,
): <L extends Pick<LabelRecord, 'title' | 'id'>>(labels: L[]) => Page<L> {
  const scope: CursorScope = { fingerprint: ['label-list', ...query], keyNames: PLACE, partition: { name: 'ws', value: ws } };
  const place = decodeCursor(scope, req.cursor);
  return (labels) => {
    let start = place ? labels.findIndex((l) => byTitle(l, { title: place.title!, id: Number(place.id) }) > 0) : 0;
    if (start < 0) start = labels.length;
    if (req.page !== undefined) start += (req.page - 1) * req.limit;
    const items = labels.slice(start, start + req.limit);
    const last = items.at(-1);
    const more = start + req.limit < labels.length;
    return { items, nextCursor: more && last ? encodeCursor(scope, { ws, title: last.title, id: String(last.id) }) : null };
  };
}
