import { deleteKeys, mapInFlight } from '#store/batches';
import { map, num, optActor, str } from '#store/codec';
import { applyLinkDeltas, type LinkDelta } from '#store/counters';
import { ItemType, type Key } from '#store/keys';
import type { Thing } from '#store/inboundStates';
import type { ProjectRef } from '#store/linkItems';
import { applyStatsDeltas, statsOnStream, type RecordDelta, type StatsDelta } from '#store/projectStats';
import { decodeLabel } from '#store/labelItem';
import type { Item } from '#store/query';
import type { Change } from '#store/streamRecords';
import { labelCascadeRound, projectCascadeRound } from './cascades';
import { SYSTEM_ACTOR } from './entities';
import { stateChangeDelta } from './inbound';

/**
 * What the stream processor keeps besides events: the counters derived from links and from inbound events, and the cascades
 * of deletes. Both are idempotent, so a redelivered or bisected batch changes nothing twice.
 */

/** (project, label) groups worked on at once. */
const GROUPS_IN_FLIGHT = 8;

interface LinkGroup {
  ws: string;
  project: { id: string; slug: string };
  labelId: number;
  deltas: LinkDelta[];
}

/**
 * A task-side link appearing (+1) or going (-1); other changes move no counter, nor does a move of a task to another shard
 * (`npm run rekey`): its copy is made marked `moved_at`, and the link it copies is marked `moved_to` before it goes.
 */
function linkDelta(change: Change): { item: Item; delta: 1 | -1 } | undefined {
  if (change.type !== ItemType.taskLink) return undefined;
  if (change.kind === 'INSERT' && change.after && change.after.moved_at === undefined) return { item: change.after, delta: 1 };
  if (change.kind === 'REMOVE' && change.before && change.before.moved_to === undefined) return { item: change.before, delta: -1 };
  return undefined;
}

/**
 * A marked task, member or sprint state changing (inbound events counted through the stream: projectStats.ts); not its
 * copy made by a move to another shard (`npm run rekey`: marked `moved_at`), whose removal where it was counts nothing.
 */
function stateDelta(change: Change): { item: Item; delta: StatsDelta } | undefined {
  const item = change.kind === 'REMOVE' ? undefined : change.after;
  if (change.type !== ItemType.thingState || !item || item.stats_by_stream !== true) return undefined;
  if (change.kind === 'INSERT' && item.moved_at !== undefined) return undefined;
  return { item, delta: stateChangeDelta(str(item, 'thing') as Thing, change.before, item) };
}

/**
 * The counters after the batch's changes: its link records' use counters and `labels_count`, and its task, member and
 * sprint states' stats, each project's summed into one write. Returns the records that changed them.
 */
export async function applyCounters(changes: Change[]): Promise<number> {
  const onStream = await statsOnStream();
  const links = await applyLinkCounters(changes, onStream);
  const projects = new Map<string, { ws: string; project: ProjectRef; records: RecordDelta[]; states: Key[] }>();
  for (const change of changes) {
    const state = stateDelta(change);
    if (!state) continue;
    const ws = str(state.item, 'workspace');
    const project = { id: str(state.item, 'project_id'), slug: str(state.item, 'project_slug') };
    const id = `${ws}\u0000${project.id}`;
    const group = projects.get(id) ?? { ws, project, records: [], states: [] };
    group.records.push({ eventId: change.id, delta: state.delta });
    group.states.push({ PK: str(state.item, 'PK'), SK: str(state.item, 'SK') });
    projects.set(id, group);
  }
  const outcomes = await mapInFlight([...projects.values()], GROUPS_IN_FLIGHT, async (g) => {
    const outcome = await applyStatsDeltas(g.ws, g.project, g.records);
    // States written after their project's delete (the consumer read it before): its cascade may be past them. Each
    // once, though the batch may hold several records of one (a batch write refuses a key named twice).
    if (outcome === 'project gone') await deleteKeys([...new Map(g.states.map((k) => [`${k.PK}\u0000${k.SK}`, k])).values()]);
    return outcome;
  });
  return outcomes.reduce<number>((applied, outcome) => (outcome === 'project gone' ? applied : applied + outcome), links);
}

async function applyLinkCounters(changes: Change[], onStream: boolean): Promise<number> {
  const groups = new Map<string, LinkGroup>();
  for (const change of changes) {
    const link = linkDelta(change);
    if (!link) continue;
    const ws = str(link.item, 'workspace');
    const projectId = str(link.item, 'project_id');
    const labelId = num(link.item, 'label_id');
    const id = `${ws}\u0000${projectId}\u0000${labelId}`;
    let group = groups.get(id);
    if (!group) {
      group = { ws, project: { id: projectId, slug: str(link.item, 'project_slug') }, labelId, deltas: [] };
      groups.set(id, group);
    }
    group.deltas.push({ eventId: change.id, delta: link.delta });
  }
  const outcomes = await mapInFlight([...groups.values()], GROUPS_IN_FLIGHT, (g) =>
    applyLinkDeltas(g.ws, g.project, g.labelId, g.deltas, onStream),
  );
  return outcomes.reduce<number>((applied, outcome) => (outcome === 'project gone' ? applied : applied + outcome), 0);
}

/** Runs one round of each deletion job the batch wrote (created, or moved to its next round). Returns the rounds run. */
export async function runCascades(changes: Change[]): Promise<number> {
  let rounds = 0;
  for (const change of changes) {
    const job = change.kind === 'REMOVE' ? undefined : change.after;
    if (!job) continue;
    if (change.type === ItemType.projectDeletion) {
      await projectCascadeRound({ ws: str(job, 'workspace'), projectId: str(job, 'project_id'), round: num(job, 'round') });
      rounds++;
    } else if (change.type === ItemType.labelDeletion) {
      const label = decodeLabel(map(job, 'label'));
      await labelCascadeRound({
        ws: str(job, 'workspace'),
        labelId: num(job, 'label_id'),
        round: num(job, 'round'),
        label: { id: label.id, slug: label.slug, title: label.title, color: label.color },
        actor: optActor(job, 'actor') ?? SYSTEM_ACTOR,
      });
      rounds++;
    }
  }
  return rounds;
}
