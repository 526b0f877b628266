import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { num } from './codec';
import { conditionally, TransactionCancelled } from './errors';
import { ItemType, keys } from './keys';
import type { ProjectRef } from './links';
import type { Item } from './query';
import { tableName } from './table';
import { transact, tx } from './transactions';

/**
 * The state of one task, member or sprint of a project, as the inbound events told it, stored in the
 * project's collection (its delete takes them with it). `v` is the item's version: a transition is
 * written conditionally on the version read.
 */
export type Thing = 'task' | 'member' | 'sprint';

export interface StoredThing {
  item: Item | undefined;
  version: number;
}

export async function readThing(projectId: string, thing: Thing, subject: string): Promise<StoredThing> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: keys.thingState(projectId, thing, subject), ConsistentRead: true }),
  );
  return { item: Item, version: Item ? num(Item, 'v') : 0 };
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
    ...keys.thingState(project.id, thing, subject),
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
    ]);
    return 'written';
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.conditionFailed('project')) return 'project gone';
    if (error.conditionFailed('state') || error.conflicted) return 'conflict';
    throw error;
  }
}
