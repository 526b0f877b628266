import { changedFields, cutChanges, retentionMs } from '#domain/activity';
import { sha256Url } from '#domain/digest';
import { type ChangeType, isChangeType } from '#domain/eventNames';
import { appendActivity } from '#store/activityLog';
import type { NewEntry } from '#store/activityLayout';
import type { OutboundEvent } from './outbound';

/**
 * The history's entries, made from the same outbound events the bus and the webhooks carry: one per
 * event, its id derived from the event's (a redelivered stream record writes the same entry again,
 * never a second one), so the three views of one change join on `event_id`.
 */

/** What no one changes by hand: times and the derived flag and counts (the stats are not in the events). */
const NOT_CHANGES: ReadonlySet<string> = new Set(['created_at', 'updated_at', 'is_private', 'id', 'stats']);

type Of<T extends OutboundEvent['detailType']> = Extract<OutboundEvent, { detailType: T }>;

/** The events of public changes (the operational ones, a webhook's health, are no one's change: the history keeps none). */
type ChangeEvent = Extract<OutboundEvent, { detailType: ChangeType }>;
const isChange = (e: OutboundEvent): e is ChangeEvent => isChangeType(e.detailType);

function subjectOf(e: ChangeEvent): Pick<NewEntry, 'project_slug' | 'project' | 'label' | 'task_uuid' | 'changes'> {
  switch (e.detailType) {
    case 'Project Created':
    case 'Project Duplicated': {
      const p = e.detail.data;
      const copied =
        e.detailType === 'Project Duplicated'
          ? [{ field: 'source_slug', from: null, to: (e as Of<'Project Duplicated'>).detail.source_slug }]
          : [];
      const changes = [...changedFields(null, p, NOT_CHANGES), ...copied];
      return { project_slug: p.slug, project: { slug: p.slug, name: p.name }, label: null, task_uuid: null, changes };
    }
    case 'Project Updated':
    case 'Project Deleted': {
      const { data: p, previous } = e.detail;
      const changes =
        e.detailType === 'Project Deleted' ? changedFields(previous, null, NOT_CHANGES) : changedFields(previous, p, NOT_CHANGES);
      return { project_slug: p.slug, project: { slug: p.slug, name: p.name }, label: null, task_uuid: null, changes };
    }
    case 'Label Created':
      return {
        project_slug: null,
        project: null,
        label: e.detail.data,
        task_uuid: null,
        changes: changedFields(null, e.detail.data, NOT_CHANGES),
      };
    case 'Label Updated':
    case 'Label Deleted': {
      const { data: l, previous } = e.detail;
      const changes =
        e.detailType === 'Label Deleted' ? changedFields(previous, null, NOT_CHANGES) : changedFields(previous, l, NOT_CHANGES);
      return { project_slug: null, project: null, label: l, task_uuid: null, changes };
    }
    case 'Label Attached':
    case 'Label Detached': {
      const { label, project_slug, task_uuid } = e.detail;
      const attached = e.detailType === 'Label Attached';
      const change = { field: 'label', from: attached ? null : label.slug, to: attached ? label.slug : null };
      return { project_slug, project: null, label, task_uuid: task_uuid ?? null, changes: [change] };
    }
  }
}

/** The entry of one change's event (its place is given as it is written: store/activityLog.ts). */
function entryOf(e: ChangeEvent): NewEntry {
  const d = e.detail;
  const subject = subjectOf(e);
  return {
    id: `act_${sha256Url(d.event_id).slice(0, 24)}`,
    type: e.detailType,
    occurred_at: d.occurred_at,
    actor: d.actor,
    company_slug: d.company_slug,
    ...subject,
    project_id: subject.project_slug === null ? null : (e.projectId ?? null),
    changes: cutChanges(subject.changes),
    event_id: d.event_id,
    request_id: e.origin?.request_id ?? null,
    idempotency_key: e.origin?.idempotency_key ?? null,
  };
}

/** Writes the entries of a batch's events, in stream order (none again when the batch is delivered again). */
export async function recordActivity(events: OutboundEvent[]): Promise<number> {
  const changes = events.filter(isChange);
  if (changes.length === 0) return 0;
  return appendActivity(changes.map(entryOf), retentionMs());
}
