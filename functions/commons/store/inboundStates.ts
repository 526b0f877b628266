import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { num } from './codec';
import { conditionally, TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import type { ProjectRef } from './linkItems';
import type { Item } from './query';
import { tableName } from './table';
import { candidateShards, newShard } from './taskShardLayout';
import { readTaskLayout } from './taskLayoutReads';
import { transact, tx, type TransactItem } from './transactions';
import { allSettled } from './settled';

/**
 * The state of one task, member or sprint of a project, as the inbound events told it, stored in the
 * project's collection (its delete takes them with it), in the shard of its subject (taskShardLayout.ts). `v` is the
 * item's version: a transition is written conditionally on the version read, where it was read.
 */
export type Thing = 'task' | 'member' | 'sprint';

export interface StoredThing {
  item: Item | undefined;
  version: number;
  /** The shard it was read in, or a new one is made in. */
  shard: number;
  /** A new one's other possible shards: its write checks that no writer made it there meanwhile. */
  elsewhere: number[];
}

/** A thing's state, from every shard it may be in, at once (its home's when a move, `npm run rekey`, left it in both). */
export async function readThing(projectId: string, thing: Thing, subject: string): Promise<StoredThing> {
  const layout = await readTaskLayout(true);
  const shards = candidateShards(subject, layout);
  const read = await allSettled(
    shards.map(
      async (n) =>
        (
          await db.send(
            new GetCommand({ TableName: tableName(), Key: keys.thingState(projectId, thing, subject, n), ConsistentRead: true }),
          )
        ).Item,
    ),
  );
  const at = read.findIndex((i) => i !== undefined);
  if (at < 0) {
    const shard = newShard(subject, layout);
    return { item: undefined, version: 0, shard, elsewhere: shards.filter((n) => n !== shard) };
  }
  return { item: read[at], version: num(read[at]!, 'v'), shard: shards[at]!, elsewhere: [] };
}

export type CounterDelta = Record<'tasks_count' | 'completed_count' | 'members_count' | 'sprints_count', number>;

/**
 * Writes a thing's new state, conditional on the state's version as read. `counters` 'stream': the state alone, marked
 * (`stats_by_stream`): its stream record moves the project's kept counters (projectStats.ts), and a state written
 * after its project was deleted (read before the delete, written after) is removed there (its project check fails),
 * so no project item is touched here. A delta: the project item's counters move by it in the same transaction,
 * conditional on the project still being this one, as the version before counts (parts `state`, `project`).
 * 'conflict': another event of the same thing got in between (read again).
 */
export async function writeTransition(
  ws: string,
  project: ProjectRef,
  thing: Thing,
  subject: string,
  state: Record<string, unknown>,
  read: StoredThing,
  counters: CounterDelta | 'stream',
): Promise<'written' | 'conflict' | 'project gone'> {
  const item = {
    ...keys.thingState(project.id, thing, subject, read.shard),
    type: ItemType.thingState,
    workspace: ws,
    project_id: project.id,
    ...(counters === 'stream' ? { project_slug: project.slug, stats_by_stream: true } : {}),
    thing,
    subject,
    ...state,
    v: read.version + 1,
  };
  const asRead = read.item ? { condition: 'v = :v', values: { ':v': read.version } } : { condition: 'attribute_not_exists(PK)' };
  const absent = read.elsewhere.map((n): [string, TransactItem] => [
    `absent#${n}`,
    tx.check(keys.thingState(project.id, thing, subject, n), { condition: 'attribute_not_exists(PK)' }),
  ]);
  if (counters === 'stream' && absent.length)
    return (await conditionallyTransact([['state', tx.put(item, asRead)], ...absent])) ? 'written' : 'conflict';
  if (counters === 'stream') {
    const put = new PutCommand({
      TableName: tableName(),
      Item: item,
      ConditionExpression: asRead.condition,
      ...(asRead.values ? { ExpressionAttributeValues: asRead.values } : {}),
    });
    return (await conditionally(db.send(put))) ? 'written' : 'conflict';
  }
  const changes = Object.entries(counters).filter(([, d]) => d !== 0);
  const live = { condition: 'id = :pid', values: { ':pid': project.id } as Record<string, unknown> };
  changes.forEach(([, d], i) => (live.values[`:d${i}`] = d));
  try {
    await transact([
      ['state', tx.put(item, asRead)],
      [
        'project',
        changes.length
          ? tx.update(keys.project(ws, project.slug), `ADD ${changes.map(([name], i) => `${name} :d${i}`).join(', ')}`, live)
          : tx.check(keys.project(ws, project.slug), live),
      ],
      ...absent,
    ]);
    return 'written';
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('project')) return 'project gone';
    if (error.anyConditionFailed || error.conflicted) return 'conflict';
    throw error;
  }
}

/** A transaction of conditions only on the thing's own items: false when one failed, or another writer got in between. */
async function conditionallyTransact(parts: [string, TransactItem][]): Promise<boolean> {
  try {
    await transact(parts);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && (error.conflicted || error.anyConditionFailed)) return false;
    throw error;
  }
}
