import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { getItem } from './batches';
import { CLOCK_SKEW_MS } from './deployWindow';
import { num } from './codec';
import { CorruptItem, TransactionCancelled, unlessConditionFails } from './errors';
import { ItemType, keys, type Key } from './keys';
import { labelTallyLayoutItem } from './labelTallyLayout';
import { type MoveLayout, readMoveLayout } from './moveLayouts';
import { AGAIN, RETRY, withRetries } from './retry';
import { tableName } from './table';
import { transact, tx, type TransactItem } from './transactions';
import type { CountedKind } from './workspaceCounts';
import { allSettled } from './settled';

/**
 * A workspace's label tally: the count that holds its label limit (workspaceCounts.ts) and the counter its label ids
 * come from (never reused), where the table's layout keeps them (labelTallyLayout.ts): in the workspace's partition
 * until the workspace's tally moves, in its own from then.
 */
export interface LabelTally {
  count: CountedKind;
  /** The next label id (a create that fails after taking it leaves a gap; its own later tries reuse it). */
  nextId: () => Promise<number>;
}

const range = (ws: string) => ({ partition: keys.workspace(ws), sortPrefix: keys.labelSkPrefix });
const SEALED = 'attribute_not_exists(sealed)';

/** The count where the version before keeps it: moved only while not sealed. */
const workspaceCount: CountedKind = { key: keys.labelCount, type: ItemType.labelCount, range, open: SEALED };
const ownCount: CountedKind = { key: keys.labelCountOwn, type: ItemType.labelCount, range };

/** The table's layout of tallies; a writer (`making`) that finds none makes it, as of now; `fresh`: as it is now. */
export const tallyLayout = (making: boolean, fresh = false): Promise<MoveLayout> =>
  readMoveLayout(keys.labelTallyLayout(), (since) => labelTallyLayoutItem(since), 'moved_at', making, fresh);

/** The tally a label create or delete in `ws` goes by now (moving the workspace's first, where it is time to). */
export async function labelTally(ws: string): Promise<LabelTally> {
  const layout = await tallyLayout(true);
  if (layout.done) return { count: ownCount, nextId: () => nextOwnId(ws, false) };
  if (Date.now() < layout.spreadAt + CLOCK_SKEW_MS && !(await isSealed(keys.labelCount(ws))))
    return { count: workspaceCount, nextId: () => nextWorkspaceId(ws) };
  await moveTally(ws);
  return { count: ownCount, nextId: () => nextOwnId(ws, true) };
}

/** The workspace's tally moved to its own partition, here or by a writer before (a race lost to another: moved by it). */
export async function moveTally(ws: string): Promise<void> {
  await withRetries(RETRY.conflicts, "The workspace's labels are being changed by other requests; retry shortly.", async () =>
    (await moveTallyOnce(ws)) === 'raced' ? AGAIN : true,
  );
}

/**
 * One try at moving the workspace's tally: in one transaction, its count and counter in the workspace's partition
 * sealed as read (a marker where there is none: a writer that would make one finds it) and their values put in its own.
 * `already`: moved before; `raced`: what it read changed meanwhile (read again).
 */
export async function moveTallyOnce(ws: string): Promise<'moved' | 'already' | 'raced'> {
  if (await getItem(keys.labelIdCounterOwn(ws))) return 'already';
  const [count, counter] = await allSettled([getItem(keys.labelCount(ws)), getItem(keys.labelIdCounter(ws))]);
  if (count?.sealed !== undefined || counter?.sealed !== undefined) return 'already';
  const at = new Date().toISOString();
  const seal = (key: Key, type: string, item: Record<string, unknown> | undefined, field: string): TransactItem =>
    item
      ? tx.update(key, 'SET sealed = :at', {
          condition: `#v = :v AND ${SEALED}`,
          names: { '#v': field },
          values: { ':v': item[field], ':at': at },
        })
      : tx.put({ ...key, type, workspace: ws, sealed: at }, { condition: 'attribute_not_exists(PK)' });
  const parts: [string, TransactItem][] = [
    ['count', seal(keys.labelCount(ws), ItemType.labelCount, count, 'count')],
    ['counter', seal(keys.labelIdCounter(ws), ItemType.labelIdCounter, counter, 'next_id')],
    [
      'ownCounter',
      tx.put(
        { ...keys.labelIdCounterOwn(ws), type: ItemType.labelIdCounter, workspace: ws, next_id: counter ? num(counter, 'next_id') : 0 },
        { condition: 'attribute_not_exists(PK)' },
      ),
    ],
  ];
  if (count)
    parts.push([
      'ownCount',
      tx.put(
        { ...keys.labelCountOwn(ws), type: ItemType.labelCount, workspace: ws, count: num(count, 'count') },
        { condition: 'attribute_not_exists(PK)' },
      ),
    ]);
  try {
    await transact(parts);
    return 'moved';
  } catch (error) {
    if (error instanceof TransactionCancelled) return 'raced';
    throw error;
  }
}

const isSealed = async (key: Key) => (await getItem(key))?.sealed !== undefined;

/** The counter's next value, added where `key` is (`condition`: where it must also hold); undefined where it does not. */
async function addOne(key: Key, ws: string, condition?: string): Promise<number | undefined> {
  const { Attributes } =
    (await unlessConditionFails(() =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'ADD next_id :one SET #type = :type, workspace = :ws',
          ...(condition ? { ConditionExpression: condition } : {}),
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':one': 1, ':type': ItemType.labelIdCounter, ':ws': ws },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    )) ?? {};
  return Attributes ? num(Attributes, 'next_id') : undefined;
}

/** From the workspace's counter while it is not sealed; once it is (moved meanwhile), from the own one. */
async function nextWorkspaceId(ws: string): Promise<number> {
  return (await addOne(keys.labelIdCounter(ws), ws, SEALED)) ?? nextOwnId(ws, true);
}

/** From the own counter; `moved`: only one the move made (where the layout is not done, none is made here). */
async function nextOwnId(ws: string, moved: boolean): Promise<number> {
  const id = await addOne(keys.labelIdCounterOwn(ws), ws, moved ? 'attribute_exists(PK)' : undefined);
  if (id !== undefined) return id;
  await moveTally(ws);
  const after = await addOne(keys.labelIdCounterOwn(ws), ws, 'attribute_exists(PK)');
  if (after === undefined) throw new CorruptItem(`label tally of ${ws}: sealed in the workspace's partition, none of its own`);
  return after;
}
