import type { InboundType } from './eventNames';
import { readProject } from '#store/projects';
import type { Item } from '#store/query';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { readThing, writeTransition, type CounterDelta, type Thing } from '#store/inboundStates';
import { statsOnStream } from '#store/projectStats';
import { removeTaskLabels } from './taskLabels';

/**
 * What the rest of the product tells this service (docs/events.md, inbound), and how each event
 * moves a project's stats. EventBridge delivers at least once and in any order, so counters never
 * move on an event itself, only on a real transition of the thing it is about: each task, member and
 * sprint has a small state, every event is merged into it, and a counter moves by the difference of
 * the state's contribution before and after. Merging is order-free and idempotent:
 *   - a task's `created` and a sprint's `created` are set once and stay;
 *   - `deleted` is a tombstone: once set, nothing brings the thing back;
 *   - a task's `completed` and a member's `present` are last-writer-wins by `occurred_at` (then event id).
 * So a duplicate changes nothing, "Task Completed" before "Task Created" ends created and completed,
 * and a late "Task Completed" after "Task Deleted" counts for nothing.
 */

export interface InboundEvent {
  type: InboundType;
  eventId: string;
  ws: string;
  projectSlug: string;
  occurredAt: string;
  /** task_uuid, username or sprint_uuid, by type. */
  subject: string;
}

const thingOf = (type: InboundType): Thing => (type.startsWith('Task') ? 'task' : type.startsWith('Member') ? 'member' : 'sprint');

/** A last-writer-wins register: the value, and the (occurred_at, event id) that set it. */
interface Register {
  value: boolean;
  at: string;
}

interface ThingState {
  created: boolean;
  deleted: boolean;
  /** Task: completed; member: present. */
  flag?: Register;
}

const EMPTY_STATE: ThingState = { created: false, deleted: false };

const stamp = (e: InboundEvent) => `${e.occurredAt}\u0000${e.eventId}`;

/** The state after merging one event (the same state when the event changes nothing). */
function merge(state: ThingState, e: InboundEvent): ThingState {
  const set = (value: boolean): ThingState =>
    state.flag && state.flag.at >= stamp(e) ? state : { ...state, flag: { value, at: stamp(e) } };
  switch (e.type) {
    case 'Task Created':
    case 'Sprint Created':
      return state.created ? state : { ...state, created: true };
    case 'Task Deleted':
    case 'Sprint Deleted':
      return state.deleted ? state : { ...state, deleted: true };
    case 'Task Completed':
    case 'Member Added':
      return set(true);
    case 'Task Reopened':
    case 'Member Removed':
      return set(false);
  }
}

/** How much a thing in `state` adds to its project's counters. */
interface Contribution {
  tasks_count: number;
  completed_count: number;
  members_count: number;
  sprints_count: number;
}

function contribution(thing: Thing, state: ThingState): Contribution {
  const none = { tasks_count: 0, completed_count: 0, members_count: 0, sprints_count: 0 };
  if (thing === 'task') {
    const live = state.created && !state.deleted;
    return { ...none, tasks_count: live ? 1 : 0, completed_count: live && state.flag?.value ? 1 : 0 };
  }
  if (thing === 'sprint') return { ...none, sprints_count: state.created && !state.deleted ? 1 : 0 };
  return { ...none, members_count: state.flag?.value ? 1 : 0 };
}

function difference(thing: Thing, before: ThingState, after: ThingState): CounterDelta {
  const was = contribution(thing, before);
  const now = contribution(thing, after);
  return {
    tasks_count: now.tasks_count - was.tasks_count,
    completed_count: now.completed_count - was.completed_count,
    members_count: now.members_count - was.members_count,
    sprints_count: now.sprints_count - was.sprints_count,
  };
}

/**
 * What a state item's change moves its project's counters by, from its stream record's images (none before: the empty
 * state): the stream processor's part of an inbound event counted through the stream.
 */
export const stateChangeDelta = (thing: Thing, before: Item | undefined, after: Item | undefined): CounterDelta =>
  difference(thing, stateOf(before), stateOf(after));

function sameState(a: ThingState, b: ThingState): boolean {
  return a.created === b.created && a.deleted === b.deleted && a.flag?.value === b.flag?.value && a.flag?.at === b.flag?.at;
}

/** The state as stored on its item (absent attributes: the empty state). */
function stateOf(item: Item | undefined): ThingState {
  if (!item) return EMPTY_STATE;
  const flag = item.flag as Register | undefined;
  return { created: item.created === true, deleted: item.deleted === true, ...(flag ? { flag: { value: flag.value, at: flag.at } } : {}) };
}

/** What applying one inbound event did (snake_case: the consumer's log line counts them under these keys). */
export type InboundOutcome = 'applied' | 'unchanged' | 'unknown_project' | 'before_project';

/**
 * Applies one inbound event: reads the thing's state, merges the event, and when that is a real
 * transition writes the new state and the counter difference together (optimistic, retried when
 * another event of the same thing got in between). A task's first deletion also removes its labels,
 * through detach's own code path, before the tombstone is written (so a retry after a failure there
 * removes what is left). An event naming the project's owner as a member changes nothing: the owner
 * always counts once. Unknown workspace or project: 'unknown_project', nothing written. An event
 * that happened before the project was created (a replay, or one about an earlier project of the
 * same slug, deleted since): 'before_project', nothing written. Instants are compared, not text.
 */
export async function applyInboundEvent(e: InboundEvent): Promise<InboundOutcome> {
  const project = await readProject(e.ws, e.projectSlug);
  if (!project) return 'unknown_project';
  if (Date.parse(e.occurredAt) < Date.parse(project.created_at)) return 'before_project';
  const thing = thingOf(e.type);
  if (thing === 'member' && e.subject === project.owner.username) return 'unchanged';
  const ref = { id: project.id, slug: project.slug };
  return withRetries(RETRY.counters, 'Inbound events of one thing keep conflicting; the queue will deliver again.', async () => {
    const read = await readThing(project.id, thing, e.subject);
    const before = stateOf(read.item);
    const after = merge(before, e);
    if (sameState(before, after)) return 'unchanged' as const;
    if (thing === 'task' && after.deleted && !before.deleted) await removeTaskLabels(e.ws, ref, e.subject);
    const stored = { created: after.created, deleted: after.deleted, ...(after.flag ? { flag: after.flag } : {}) };
    // Through the stream: the state alone (its record moves the counters); before that, the counters with it.
    const counters = (await statsOnStream()) ? 'stream' : difference(thing, before, after);
    const written = await writeTransition(e.ws, ref, thing, e.subject, stored, read, counters);
    if (written === 'conflict') return AGAIN;
    return written === 'project gone' ? ('unknown_project' as const) : ('applied' as const);
  });
}
