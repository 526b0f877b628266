import { deleteKeys } from './batches';
import { labelStillAsRead } from './labels';
import { num, str } from './codec';
import { ItemType, keys } from './keys';
import { labelLinkShard, labelLinksLayoutItem, labelShardOf, stillInShard } from './labelLinkLayout';
import { detachNoteItem, labelLinkItem, taskLinkItem, taskVersionItem, type LabelRef, type ProjectRef } from './linkItems';
import { serviceSpreadAt } from './serviceLayouts';
import { queryAll, type Item, type KeyRange } from './query';
import { newShard, shardsInMoveOrder, type TaskLayout } from './taskShardLayout';
import { liveParts, marksAlone } from './tombstones';
import { transact, tx, type TransactItem } from './transactions';
import type { Actor, LabelRecord } from '#domain/entities';

/**
 * Task-label links. A link is two items written and deleted together in one transaction:
 *   task side   PROJECT#<projectId>[#SHARD#<n>] / TASK#<task>#LABEL#<labelId>   (a task's labels: one Query of its shard)
 *   label side  LABEL#<ws>#<labelId>[#SHARD#<n>] / PROJECT#<projectId>#TASK#<task> (a label's tasks: a merged read)
 * Both are base-table items, so every read that decides a write is strongly consistent. Per task, a
 * version item that every attach bumps keeps concurrent attaches from taking a task past the limit.
 * Nothing else is on the request path: per-label use counters and `labels_count` follow from the
 * table's stream (store/counters.ts), so attaches of one label to many tasks never contend.
 * A detach also writes a short-lived note naming who detached what: its `Label Detached` event.
 */
/** A label a task carries: the shard of its link's label side (labelLinkLayout.ts), as its task side names it, and of its task side. */
interface TaskLink extends LabelRef {
  shard: number;
  taskShard: number;
}

/** A task's links as read before a change, with the version that guards its label limit and where the task lives. */
export interface TaskState {
  task: string;
  links: TaskLink[];
  /** The task's version item (absent before the task's first attach). */
  version: number | undefined;
  /** The shard of its project's collection the task lives in: its version's, or where a new one is made (taskShardLayout.ts). */
  home: number;
  /** Where a new link of it goes: its home shard once tasks spread (even while its version is still in shard 0, until a move). */
  linkShard: number;
  /** A new task's other possible shards: its first attach checks that no writer made it there meanwhile. */
  elsewhere: number[];
}

/**
 * A task's links and version, from every shard it may be in (taskShardLayout.ts). A link a move has copied to the
 * task's home (`npm run rekey`) is marked `moved_to` where it was, and read where it went. Items only move from shard 0
 * to the home, so shard 0 is read first: a link moved between the two reads is found at home, never missed in both.
 */
export async function readTask(projectId: string, task: string, layout: TaskLayout): Promise<TaskState> {
  const shards = shardsInMoveOrder(task, layout);
  const read: Item[][] = [];
  for (const n of shards) read.push(await queryAll({ partition: keys.projectShard(projectId, n), sortPrefix: keys.taskSkPrefix(task) }));
  const links = new Map<number, TaskLink>();
  let version: { v: number; shard: number } | undefined;
  shards.forEach((n, i) => {
    for (const item of read[i]!) {
      // Read in both (a move's commit between the reads): the home's, read last, is the one now.
      if (item.type === ItemType.taskVersion) version = { v: num(item, 'v'), shard: n };
      else if (item.type === ItemType.taskLink && item.moved_to === undefined && !links.has(num(item, 'label_id')))
        links.set(num(item, 'label_id'), {
          id: num(item, 'label_id'),
          slug: str(item, 'label_slug'),
          shard: labelShardOf(item),
          taskShard: n,
        });
    }
  });
  const home = version?.shard ?? newShard(task, layout);
  return {
    task,
    links: [...links.values()],
    version: version?.v,
    home,
    linkShard: newShard(task, layout),
    elsewhere: version ? [] : shards.filter((n) => n !== home),
  };
}

/**
 * The parts that hold a link's (or a label-set membership's) transaction to a live project and label (tombstones.ts):
 * the marks alone once no function of the version before can be deleting (the deploy's window after this version's
 * first link on the table), the items as well until then.
 */
export async function stillLive(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  where: { projectShard: number; labelShard: number },
): Promise<[string, TransactItem][]> {
  return liveParts(ws, project, label, where, await marksAlone());
}

/**
 * Links the label to the tasks of `adding` (none of which carries it) in one transaction,
 * conditional on what was read: each task's version, in the shard it lives in. Parts: the project and the label
 * still live (`project...`, `label...`: tombstones.ts), and per task `version:`, `link:`, `labelLink:`, and for a new
 * task `absent:<shard>` (not made elsewhere).
 */
export async function writeAttach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  adding: TaskState[],
  actor: Actor,
): Promise<Map<string, number>> {
  const shards = new Map<string, number>();
  // When links began to spread: the attach makes the service's LAYOUT item, if none (labelLinkLayout.ts).
  const spreadAt = await serviceSpreadAt(keys.labelLinksLayout(), labelLinksLayoutItem, true);
  const at = Date.now();
  const now = new Date(at).toISOString();
  // The first task's shards answer for the project and the label (tombstones.ts): a delete marks every shard.
  const first = adding[0]!;
  const parts = await stillLive(ws, project, label, {
    projectShard: first.linkShard,
    labelShard: labelLinkShard(first.task, spreadAt, at),
  });
  for (const s of adding) {
    const shard = labelLinkShard(s.task, spreadAt, at);
    shards.set(s.task, shard);
    parts.push(
      [
        `version:${s.task}`,
        tx.put(
          taskVersionItem(ws, project.id, s.task, (s.version ?? 0) + 1, s.home),
          s.version === undefined ? { condition: 'attribute_not_exists(PK)' } : { condition: 'v = :v', values: { ':v': s.version } },
        ),
      ],
      [
        `link:${s.task}`,
        tx.put(taskLinkItem(ws, project, label, s.task, now, actor, shard, s.linkShard), { condition: 'attribute_not_exists(PK)' }),
      ],
      [`labelLink:${s.task}`, tx.put(labelLinkItem(ws, project, label, s.task, now, shard), { condition: 'attribute_not_exists(PK)' })],
      ...s.elsewhere.map((n): [string, TransactItem] => [
        `absent:${s.task}#${n}`,
        tx.check(keys.taskVersion(project.id, s.task, n), { condition: 'attribute_not_exists(PK)' }),
      ]),
    );
  }
  await transact(parts);
  return shards;
}

/**
 * Unlinks the label from the tasks of `removing` (each carries it) in one transaction, with a note
 * per task for its event. Parts per task: `link:` (still there where read, naming the shard read, and not copied home
 * by a move since: `npm run rekey` marks what it copied), `labelLink:`, `note:`; given `asRead` (If-Match), `labelAsRead`
 * (the label is still that revision).
 */
export async function writeDetach(
  ws: string,
  project: ProjectRef,
  label: LabelRef,
  removing: TaskState[],
  actor: Actor,
  asRead?: LabelRecord,
): Promise<void> {
  const parts: [string, TransactItem][] = asRead ? [['labelAsRead', labelStillAsRead(ws, asRead)]] : [];
  for (const s of removing) {
    const link = linkOf(s, label);
    const still = stillInShard(link.shard);
    parts.push(
      // Still the link as read: a link made again since may have its label side in another shard.
      [
        `link:${s.task}`,
        tx.delete(keys.taskLink(project.id, s.task, label.id, link.taskShard), {
          ...still,
          condition: `${still.condition} AND attribute_not_exists(moved_to)`,
        }),
      ],
      [`labelLink:${s.task}`, tx.delete(keys.labelLink(ws, label.id, project.id, s.task, link.shard))],
      // Beside the link: its attach's and its detach's records come in order from one stream shard.
      [`note:${s.task}`, tx.put(detachNoteItem(ws, project, label, s.task, actor, undefined, link.taskShard))],
    );
  }
  await transact(parts);
}

/** The label-side links of one project, in task order (the tasks carrying the label there), in shard 0: merge every shard. */
export function tasksWithLabelRange(ws: string, labelId: number, projectId: string): KeyRange {
  return { partition: keys.labelCollection(ws, labelId), sortPrefix: keys.labelLinkProjectPrefix(projectId) };
}

/** `label`'s link to the task of `s`, as read (a detach acts only on links read). */
function linkOf(s: TaskState, label: LabelRef): TaskLink {
  const link = s.links.find((l) => l.id === label.id);
  if (!link) throw new Error(`task ${s.task} was not read carrying label ${label.id}`);
  return link;
}

export function taskOfLabelLink(item: Item): string {
  return str(item, 'task_uuid');
}

/**
 * Removes a task's version item, from every shard it may be in (its labels are gone: the task was deleted elsewhere):
 * shard 0's first, then its home's, so a move's commit between the two (shard 0 to home) leaves none behind.
 */
export async function deleteTaskVersion(projectId: string, task: string, layout: TaskLayout): Promise<void> {
  for (const n of shardsInMoveOrder(task, layout)) await deleteKeys([keys.taskVersion(projectId, task, n)]);
}
