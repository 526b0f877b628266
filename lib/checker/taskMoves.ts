import { chunk, deleteKeys } from '#store/batches';
import { num, str } from '#store/codec';
import { CLOCK_SKEW_MS } from '#store/deployWindow';
import { TransactionCancelled } from '#store/errors';
import { ItemType, keys, type Key } from '#store/keys';
import { taskVersionItem } from '#store/linkItems';
import { queryAll } from '#store/query';
import { readTaskLayout } from '#store/taskLayoutReads';
import { homeShard } from '#store/taskShardLayout';
import { projectMarkCheck } from '#store/tombstones';
import { markLayoutDone } from './layoutMarks.ts';
import { transact, tx, type TransactItem } from '#store/transactions';

/**
 * `npm run rekey`'s part in task shards (store/taskShardLayout.ts): every task made before tasks spread, still in its
 * project's shard 0, goes to its home, and every task's, member's or sprint's state alike. Safe beside a running
 * service: each step is conditional on what it read, and readers see a task whole at every step.
 *
 * A task's move: its links are copied home in transactions of LINKS_PER_STEP, each marking the links it copied
 * (`moved_to`: readers skip them, a detach that read one before fails and reads again, and their removal later counts
 * nothing) and bumping the task's version (an attach that read before fails its condition and reads again, now finding
 * each link once; one after it makes the next step fail, and the move reads again); then its version goes home
 * in one transaction, the move's commit: from then on the task is read and written there; then the marked links go. A
 * copy is marked `moved_at`: the stream makes no event, history entry or count of it (events/outbound.ts,
 * domain/streamUpkeep.ts). A state moves in one transaction, copied home and removed where it was, conditional on its
 * version.
 */

type Item = Record<string, any>;

/** Links per step of a move: two operations each, and the version's bump (100 a transaction at most). */
const LINKS_PER_STEP = 49;
/** Rounds of a task's move before it is left to the next run (other writers kept changing it meanwhile), a pause between. */
const ROUNDS = 10;
const PAUSE_MS = 20;

/** Whether an item is one of a task's or thing's, in shard 0 of its project, away from its home. */
export function awayFromHome(i: Item): boolean {
  const taskItem = i.type === ItemType.taskLink || i.type === ItemType.taskVersion || i.type === ItemType.thingState;
  return taskItem && i.PK === keys.projectShard(i.project_id, 0);
}

/** The task (or member or sprint) a task's item or a state is of. */
export const subjectOf = (i: Item): string => (i.type === ItemType.thingState ? i.subject : i.task_uuid);

/**
 * Moves the tasks and states of `items` (a scan) that are away from home, unless the deploy window is still open (then
 * `waitUntil` says till when). Projects being deleted are left to their cascades.
 */
export async function moveTasksHome(
  items: Item[],
  conflicts: string[],
  dryRun: boolean,
): Promise<{ tasks: number; states: number; waitUntil?: string }> {
  const deleting = new Set(items.filter((i) => i.type === ItemType.projectDeletion).map((i) => i.project_id as string));
  const away = items.filter((i) => awayFromHome(i) && !deleting.has(i.project_id));
  const tasks = new Map<string, { ws: string; projectId: string; task: string }>();
  for (const i of away.filter((i) => i.type !== ItemType.thingState))
    tasks.set(`${i.project_id}#${i.task_uuid}`, { ws: i.workspace, projectId: i.project_id, task: i.task_uuid });
  const states = away.filter((i) => i.type === ItemType.thingState);
  const result = { tasks: tasks.size, states: states.length };
  if (dryRun || away.length === 0) return result;
  // Until the deploy's window has passed, and a writer's clock skew with it (Infinity: no version spreads tasks yet).
  const at = (await readTaskLayout(false)).spreadAt + CLOCK_SKEW_MS;
  if (Date.now() < at) return { ...result, waitUntil: Number.isFinite(at) ? new Date(at).toISOString() : 'a deploy of this version' };
  for (const t of tasks.values()) {
    const failed = await moveTask(t.ws, t.projectId, t.task);
    if (failed) conflicts.push(`task ${t.projectId}/${t.task}: ${failed}`);
  }
  for (const s of states)
    if (!(await moveState(s))) conflicts.push(`${s.thing} state ${s.PK} / ${s.SK}: changed while moving, or its home has one; run again`);
  return result;
}

/** Says on the table's task layout that no task is left away from home: functions then read each task's home alone. */
export const markRekeyed = (): Promise<void> => markLayoutDone(keys.taskShardsLayout(), 'rekeyed_at');

const keyOf = (i: Item): Key => ({ PK: str(i, 'PK'), SK: str(i, 'SK') });

/** Moves a task home; what kept it from moving, if anything. */
async function moveTask(ws: string, projectId: string, task: string): Promise<string | undefined> {
  for (let round = 0; round < ROUNDS; round++) {
    try {
      const copied = await copyTaskHome(ws, projectId, task);
      if (copied === 'again') continue;
      if (copied === 'two versions') return 'has a version both in shard 0 and at home (two writers made it at once): keep one';
      if (copied.commitAt !== undefined)
        // The commit: the version goes home, and the task with it.
        await transact([
          ['from', tx.delete(keys.taskVersion(projectId, task, 0), { condition: 'v = :v', values: { ':v': copied.commitAt } })],
          [
            'to',
            tx.put(taskVersionItem(ws, projectId, task, copied.commitAt + 1, homeShard(task)), { condition: 'attribute_not_exists(PK)' }),
          ],
          projectLive(projectId),
        ]);
      await deleteKeys(copied.left.map(keyOf));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      // Deleted since: its cascade takes the task wherever it is.
      if (error.conditionFailed('project')) return undefined;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS * (round + 1)));
    }
  }
  return 'changed on every round of its move; run again';
}

/**
 * A move's first part: the task's links in shard 0 copied home and marked, a step at a time, each bumping the task's
 * version where it is (what a run that stopped before its commit leaves). Then `commitAt`, the version a commit moves
 * home (none when the version is at home already: links of before left behind by a task made at home since), and the
 * links left in shard 0 (all marked, once it is through). 'again' when a task of links alone got a version first (in
 * shard 0, none being at home); 'two versions' when it has one in each (check:table names it). Throws
 * TransactionCancelled when another writer got in between.
 */
export async function copyTaskHome(
  ws: string,
  projectId: string,
  task: string,
): Promise<'again' | 'two versions' | { commitAt?: number; left: Item[] }> {
  const home = homeShard(task);
  // Shard 0 first, as a task's reads (store/links.ts): what moves between the reads is found at home.
  const atZero = await queryAll({ partition: keys.projectShard(projectId, 0), sortPrefix: keys.taskSkPrefix(task) });
  const atHome = await queryAll({ partition: keys.projectShard(projectId, home), sortPrefix: keys.taskSkPrefix(task) });
  const [v0, vh] = [atZero, atHome].map((items) => items.find((i) => i.type === ItemType.taskVersion));
  const links = atZero.filter((i) => i.type === ItemType.taskLink);
  const unmarked = links.filter((i) => i.moved_to === undefined);
  if (v0 && vh) return 'two versions';
  if (!v0 && !vh) {
    if (!unmarked.length) return { left: links };
    await transact([
      ['version', tx.put(taskVersionItem(ws, projectId, task, 1, 0), { condition: 'attribute_not_exists(PK)' })],
      ['absent', tx.check(keys.taskVersion(projectId, task, home), { condition: 'attribute_not_exists(PK)' })],
      projectLive(projectId),
    ]);
    return 'again';
  }
  const where = v0 ? 0 : home;
  let v = num((v0 ?? vh)!, 'v');
  for (const part of chunk(unmarked, LINKS_PER_STEP)) {
    const version = keys.taskVersion(projectId, task, where);
    await transact([['version', bump(version, v)], ...part.flatMap((l) => copyLink(l, projectId, task, home)), projectLive(projectId)]);
    v++;
  }
  return where === 0 ? { commitAt: v, left: links } : { left: links };
}

/**
 * Each write of a move is for a project not deleted since its read (its mark in shard 0, store/tombstones.ts): the
 * project's cascade may have read where the write goes already, and finished without what it adds.
 */
const projectLive = (projectId: string): [string, TransactItem] => ['project:gone', projectMarkCheck(projectId, 0)];

const bump = (key: Key, v: number): TransactItem =>
  tx.update(key, 'SET v = :next', { condition: 'v = :v', values: { ':v': v, ':next': v + 1 } });

/** A link's copy at home (marked `moved_at`), and the link where it was marked `moved_to`, still as read. */
function copyLink(l: Item, projectId: string, task: string, home: number): [string, TransactItem][] {
  const label = num(l, 'label_id');
  const copy = { ...l, ...keys.taskLink(projectId, task, label, home), moved_at: new Date().toISOString() };
  return [
    [`copy:${label}`, tx.put(copy, { condition: 'attribute_not_exists(PK)' })],
    [
      `mark:${label}`,
      tx.update(keyOf(l), 'SET moved_to = :home', {
        condition: 'created_at = :at AND attribute_not_exists(moved_to)',
        values: { ':home': home, ':at': l.created_at },
      }),
    ],
  ];
}

async function moveState(s: Item): Promise<boolean> {
  const home = keys.thingState(str(s, 'project_id'), s.thing, str(s, 'subject'), homeShard(str(s, 'subject')));
  try {
    await transact([
      ['to', tx.put({ ...s, ...home, moved_at: new Date().toISOString() }, { condition: 'attribute_not_exists(PK)' })],
      ['from', tx.delete(keyOf(s), { condition: 'v = :v', values: { ':v': s.v } })],
      projectLive(str(s, 'project_id')),
    ]);
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    // Deleted since: its cascade takes the state wherever it is.
    return error.conditionFailed('project');
  }
}
