import { keys } from './keys';
import { readMoveLayout } from './moveLayouts';
import { taskShardsLayoutItem, type TaskLayout } from './taskShardLayout';

/**
 * The table's task layout (taskShardLayout.ts), read as a move's layout is (moveLayouts.ts: once a function, again until
 * it is rekeyed). A writer (`making`) that finds no item makes it, as of now; a reader takes "not spread, not rekeyed".
 */
export async function readTaskLayout(making: boolean): Promise<TaskLayout> {
  const { spreadAt, done } = await readMoveLayout(keys.taskShardsLayout(), (since) => taskShardsLayoutItem(since), 'rekeyed_at', making);
  return { spreadAt, rekeyed: done };
}
