import type { OutboundType } from '#domain/eventNames';
import { labelView } from '#wire/labelViews';
import { projectFullView } from '#wire/projectViews';
import { getItems } from '#store/batches';
import { map, num, optActor, optStr, str } from '#store/codec';
import { ItemType, keys } from '#store/keys';
import { decodeLabel } from '#store/labelItem';
import { decodeProject } from '#store/projectItem';
import { keptStatsOf, type StatsOf } from './keptStats';
import { userChanged } from './projectChanges';
import { decodeWebhook } from '#webhooks/store/webhookItem';
import { webhookSummaryView } from '#webhooks/views';
import type { Item } from '#store/query';
import type { Change } from '#store/streamRecords';
import { type Actor, type LabelRecord, SYSTEM_ACTOR } from '#domain/entities';
import type { OutboundDetail } from '#wire/eventSchemas';
import { allSettled } from '#store/settled';

/**
 * The service's outbound events (docs/events.md), derived from the table's stream: one per
 * public change, none for internal items (counters, guards, versions, receipts, tokens) and none for a
 * refused request (it wrote nothing); and the operational ones, from a webhook's item as its health changes.
 * `event_id` is the stream record's id, the same on redelivery.
 */

/** One outbound event of type T: its `detail` as wire/eventSchemas.ts declares it for T (the AsyncAPI document says the same). */
export interface OutboundEventOf<T extends OutboundType> {
  detailType: T;
  /** When the change happened (ISO 8601): the event's `occurred_at` and EventBridge `Time`. */
  time: string;
  detail: OutboundDetail<T>;
  /** The request that made the change, as its actor recorded it: for the history, never published. */
  origin?: Origin;
  /** The project's stable id (its slug can be taken again after a delete): for the history, never published. */
  projectId?: string;
}

/** The request behind a change: its X-Request-Id and Idempotency-Key, where the item recorded them. */
interface Origin {
  request_id: string | null;
  idempotency_key: string | null;
}

/** Any outbound event: its type and its detail go together. */
export type OutboundEvent = { [T in OutboundType]: OutboundEventOf<T> }[OutboundType];

type LabelLookup = (ws: string, id: number, slug: string) => OutboundDetail<'Label Attached'>['label'];
/** What an event of type T carries besides what every event carries (distributed over a union of types). */
type Rest<T extends OutboundType> = T extends OutboundType
  ? Omit<OutboundDetail<T>, 'event_id' | 'company_slug' | 'occurred_at' | 'actor'>
  : never;

const actorView = (actor: Actor | undefined) => (actor ? { username: actor.username } : null);
const originOf = (actor: Actor | undefined): Origin => ({
  request_id: actor?.request_id ?? null,
  idempotency_key: actor?.idempotency_key ?? null,
});

function event<T extends OutboundType>(
  change: Change,
  detailType: T,
  ws: string,
  time: string,
  by: Actor | undefined,
  rest: Rest<T>,
  projectId?: string,
): OutboundEvent {
  // The compiler checks `rest` against T's declaration; it cannot follow a spread of a generic into
  // OutboundDetail<T>, so the four members every event carries are added under a cast.
  const detail = { event_id: change.id, company_slug: ws, occurred_at: time, actor: actorView(by), ...rest } as OutboundDetail<T>;
  return { detailType, time, detail, origin: originOf(by), ...(projectId ? { projectId } : {}) } as OutboundEventOf<T> as OutboundEvent;
}

function projectEvent(change: Change, whole: StatsOf): OutboundEvent | undefined {
  const { before, after } = change;
  if (change.kind === 'INSERT' && after) {
    const p = decodeProject(after);
    const data = { data: projectFullView(p) };
    return p.source_slug === undefined
      ? event(change, 'Project Created', p.workspace, p.created_at, p.updated_by, data, p.id)
      : event(change, 'Project Duplicated', p.workspace, p.created_at, p.updated_by, { ...data, source_slug: p.source_slug }, p.id);
  }
  if (change.kind === 'MODIFY' && before && after && userChanged(before, after)) {
    const p = whole(decodeProject(after));
    const was = whole(decodeProject(before));
    return event(
      change,
      'Project Updated',
      p.workspace,
      p.updated_at,
      p.updated_by,
      { data: projectFullView(p), previous: projectFullView(was) },
      p.id,
    );
  }
  return undefined;
}

function labelEvent(change: Change): OutboundEvent | undefined {
  const { before, after } = change;
  if (change.kind === 'INSERT' && after) {
    const l = decodeLabel(after);
    return event(change, 'Label Created', str(after, 'workspace'), l.created_at, l.updated_by, { data: labelView(l) });
  }
  if (change.kind === 'MODIFY' && before && after) {
    const l = decodeLabel(after);
    const was = decodeLabel(before);
    if (before.updated_at === after.updated_at && JSON.stringify(labelView(l)) === JSON.stringify(labelView(was))) return undefined;
    return event(change, 'Label Updated', str(after, 'workspace'), l.updated_at, l.updated_by, {
      data: labelView(l),
      previous: labelView(was),
    });
  }
  return undefined;
}

/** A deletion job appearing is the delete (the item itself went in the same transaction). */
function deletionEvent(change: Change): OutboundEvent | undefined {
  const job = change.kind === 'INSERT' ? change.after : undefined;
  if (!job) return undefined;
  const ws = str(job, 'workspace');
  const actor = optActor(job, 'actor');
  const time = str(job, 'deleted_at');
  if (change.type === ItemType.projectDeletion) {
    const project = decodeProject(map(job, 'project'));
    const data = projectFullView(project);
    return event(change, 'Project Deleted', ws, time, actor, { data, previous: data }, project.id);
  }
  const data = labelView(decodeLabel(map(job, 'label')));
  return event(change, 'Label Deleted', ws, time, actor, { data, previous: data });
}

function linkEvent(change: Change, label: LabelLookup): OutboundEvent | undefined {
  const item = change.kind === 'INSERT' ? change.after : undefined;
  // A link's copy made by a move of its task to another shard (`npm run rekey`) is no new link.
  if (!item || item.moved_at !== undefined) return undefined;
  const ws = str(item, 'workspace');
  const detached = change.type === ItemType.detachNote;
  const task = item.task_uuid;
  const by = optActor(item, detached ? 'actor' : 'created_by');
  return event(
    change,
    detached ? 'Label Detached' : 'Label Attached',
    ws,
    str(item, detached ? 'at' : 'created_at'),
    by,
    {
      project_slug: str(item, 'project_slug'),
      ...(typeof task === 'string' ? { task_uuid: task } : {}),
      label: keptLabel(item) ?? label(ws, num(item, 'label_id'), str(item, 'label_slug')),
    },
    str(item, 'project_id'),
  );
}

/** The label as the link's change read it, kept on its item (items written before that keep none). */
function keptLabel(item: Item): OutboundDetail<'Label Attached'>['label'] | undefined {
  const title = optStr(item, 'label_title');
  const color = optStr(item, 'label_color');
  return title === undefined || color === undefined
    ? undefined
    : { id: num(item, 'label_id'), slug: str(item, 'label_slug'), title, color };
}

/**
 * A webhook's health changing on its item (webhooks/store/webhookHealth.ts): a run of failures beginning while it
 * is active, the service turning it off, a success ending the run of an active one. A user's own changes
 * (an update, a rotation, turning it off or on again) publish nothing.
 */
function webhookEvent(change: Change): OutboundEvent | undefined {
  const { before, after } = change;
  if (change.kind !== 'MODIFY' || !before || !after) return undefined;
  const was = decodeWebhook(before);
  const now = decodeWebhook(after);
  const data = webhookSummaryView(now);
  if (now.active && now.failing_since !== undefined && now.failing_since !== was.failing_since)
    return event(change, 'Webhook Failing', now.workspace, now.failing_since, undefined, { data });
  if (was.active && !now.active && now.deactivated_reason !== undefined)
    return event(change, 'Webhook Disabled', now.workspace, now.updated_at, SYSTEM_ACTOR, { data });
  if (was.active && now.active && was.failing_since !== undefined && now.failing_since === undefined) {
    // The success's time, when this write recorded it (one that did not, or a success older than the run
    // it ended, as a slow attempt's can be: the time of the write).
    const recorded = optStr(after, 'recovered_at');
    const fresh = recorded !== undefined && recorded !== optStr(before, 'recovered_at') && recorded >= was.failing_since;
    const at = fresh ? recorded : change.at;
    return event(change, 'Webhook Recovered', now.workspace, at, undefined, { data, failing_since: was.failing_since });
  }
  return undefined;
}

const LINK_TYPES: ReadonlySet<unknown> = new Set([ItemType.taskLink, ItemType.projectLabel, ItemType.detachNote]);

/**
 * The labels of link events whose items keep none (written before they did): as they are now, or as
 * they were deleted (from the label's deletion job), or, when even the job is gone, by id and slug.
 * One batch read for the whole stream batch.
 */
async function labelsOf(changes: Change[]): Promise<LabelLookup> {
  const wanted = new Map<string, { ws: string; id: number; slug: string }>();
  for (const c of changes) {
    const item = c.kind === 'INSERT' && LINK_TYPES.has(c.type) ? c.after : undefined;
    if (!item || keptLabel(item)) continue;
    const ref = { ws: str(item, 'workspace'), id: num(item, 'label_id'), slug: str(item, 'label_slug') };
    wanted.set(`${ref.ws}#${ref.id}`, ref);
  }
  const found = new Map<string, LabelRecord>();
  if (wanted.size) {
    const refs = [...wanted.values()];
    const items = await getItems(refs.flatMap((r) => [keys.label(r.ws, r.slug), keys.labelDeletion(r.ws, r.id)]));
    for (const item of items as Item[]) {
      const ws = str(item, 'workspace');
      const label = item.type === ItemType.labelDeletion ? decodeLabel(map(item, 'label')) : decodeLabel(item);
      if (wanted.has(`${ws}#${label.id}`)) found.set(`${ws}#${label.id}`, label);
    }
  }
  return (ws, id, slug) => {
    const label = found.get(`${ws}#${id}`);
    return label ? labelView(label) : { id, slug };
  };
}

/** The events of a batch of changes, in stream order. */
export async function eventsOf(changes: Change[]): Promise<OutboundEvent[]> {
  // The kept stats of the projects whose change is an event (a counter's move on the item is none).
  const updates = changes.filter(
    (c) => c.type === ItemType.project && c.kind === 'MODIFY' && c.before && c.after && userChanged(c.before, c.after),
  );
  const [label, whole] = await allSettled([labelsOf(changes), keptStatsOf(updates)]);
  const events: OutboundEvent[] = [];
  for (const change of changes) {
    const e =
      change.type === ItemType.project
        ? projectEvent(change, whole)
        : change.type === ItemType.label
          ? labelEvent(change)
          : change.type === ItemType.projectDeletion || change.type === ItemType.labelDeletion
            ? deletionEvent(change)
            : LINK_TYPES.has(change.type)
              ? linkEvent(change, label)
              : change.type === ItemType.webhook
                ? webhookEvent(change)
                : undefined;
    if (e) events.push(e);
  }
  return events;
}
