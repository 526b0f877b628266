import type { LabelRecord } from '#store/labels';
import { decodeCursor, encodeCursor, type CursorScope } from './cursors';
import { byTitle } from './labels';
import type { Page, PageRequest } from './paging';

/** What a label list's cursor holds: the workspace and the last label's place in the order. */
const PLACE = ['ws', 'title', 'id'] as const;

/**
 * One page of a label list, which is read whole (the spec answers every label at once) and ordered
 * by title. The cursor names the last label's place in that order (its title and id), not an
 * offset, so a label created or deleted between two pages shifts nothing; like every cursor it is
 * bound to its query and workspace (`query` tells the lists apart), and an edited one is a 422.
 */
export function pageOfLabels<L extends Pick<LabelRecord, 'title' | 'id'>>(
  ws: string,
  query: string[],
  labels: L[],
  req: PageRequest,
): Page<L> {
  const scope: CursorScope = { fingerprint: ['label-list', ...query], keyNames: PLACE, partition: { name: 'ws', value: ws } };
  const place = decodeCursor(scope, req.cursor);
  const ordered = [...labels].sort(byTitle);
  let start = place ? ordered.findIndex((l) => byTitle(l, { title: place.title!, id: Number(place.id) }) > 0) : 0;
  if (start < 0) start = ordered.length;
  if (req.page !== undefined) start += (req.page - 1) * req.limit;
  const items = ordered.slice(start, start + req.limit);
  const last = items.at(-1);
  const more = start + req.limit < ordered.length;
  return { items, nextCursor: more && last ? encodeCursor(scope, { ws, title: last.title, id: String(last.id) }) : null };
}
