import { ItemType, keys } from './keys';

/**
 * Where a label's title guard is (the item whose conditional put makes titles unique in a workspace), pure: the local
 * tools make the layout item, the store reads it (labelGuards.ts). The version before keeps guards in the workspace's
 * partition (`WS#<ws>` / `LABELTITLE#<title>`); this one in a partition of their own per title
 * (`LABEL#<ws>#TITLE#<title>` / `GUARD`), so that a label's create, rename or delete writes its workspace's partition
 * no more than its label item does.
 *
 * A table moves in three stages, by the service's LAYOUT item (`WS#` / `LAYOUT#LABELTITLES`):
 * - until `npm run rekey` has made every label's own guard (`moved_at`), the workspace's guards hold (a create's put
 *   there is conditional: the version before writes only those) and the own ones follow them (put and deleted as
 *   they are, unconditionally: one the version before left behind is overwritten or removed);
 * - from then, for as long as a function may still go by the layout it read before (RELOOK_MS and a clock's skew),
 *   the own guards hold and the workspace's follow them;
 * - after that, the own guards alone.
 * A table the local tools make new has the item as of long ago, moved: own guards alone.
 */
export const labelGuardsLayoutItem = (since: string, movedAt?: string) => ({
  ...keys.labelGuardsLayout(),
  type: ItemType.labelGuardsLayout,
  sharded_since: since,
  ...(movedAt === undefined ? {} : { moved_at: movedAt }),
});
