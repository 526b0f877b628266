import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { ItemType, keys, type Key } from '#store/keys';
import { tableName } from '#store/table';

type Item = Record<string, any>;

/** Whether every label has its own title guard: `npm run rekey` said so on the layout item (store/labelGuardLayout.ts). */
async function guardsMoved(): Promise<boolean> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelGuardsLayout(), ConsistentRead: true }));
  return Item?.moved_at !== undefined;
}

/**
 * Each label has the title guard of its title where guards hold (store/labelGuards.ts: the workspace's until every label
 * has its own, its own from then), and each guard there names a label of that title. The guards that follow (own ones
 * the version before left behind, the workspace's after the move) are not looked at: after the move
 * a function goes by the workspace's only until it looks at the layout again, and until then every write keeps them.
 */
export async function guardViolations(items: Item[]): Promise<string[]> {
  const moved = await guardsMoved();
  const keyOf: (ws: string, norm: string) => Key = moved ? keys.labelTitleGuardOwn : keys.labelTitleGuard;
  const slot = (k: Key) => `${k.PK}|${k.SK}`;
  const guards = items.filter((i) => i.type === (moved ? ItemType.labelTitleGuardOwn : ItemType.labelTitleGuard));
  const guardBySlot = new Map(guards.map((g) => [slot({ PK: g.PK, SK: g.SK }), g]));
  const labels = items.filter((i) => i.type === ItemType.label);
  const labelById = new Map(labels.map((l) => [`${l.workspace}#${l.id}`, l]));
  const v: string[] = [];
  for (const l of labels) {
    const guard = guardBySlot.get(slot(keyOf(l.workspace, titleKey(l.title))));
    if (!guard || guard.label_id !== l.id) v.push(`label ${l.workspace}/${l.slug} has no title guard`);
  }
  for (const g of guards) {
    const label = labelById.get(`${g.workspace}#${g.label_id}`);
    if (!label || slot(keyOf(g.workspace, titleKey(label.title))) !== slot({ PK: g.PK, SK: g.SK }))
      v.push(`title guard ${g.PK} / ${g.SK} has no label with that title`);
  }
  return v;
}
