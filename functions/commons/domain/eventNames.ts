/**
 * The events this service publishes and consumes, declared once: the publisher (events/outbound.ts)
 * and the consumer (events/inbound.ts) use these names, the CDK stack's bus rule and the local queue
 * read the inbound list, and a test holds docs/events.md to both lists.
 */
export const EVENT_SOURCE = 'project-label-service';

/** One per public change, published from the table's stream (source EVENT_SOURCE): the history keeps these. */
export const CHANGE_TYPES = [
  'Project Created',
  'Project Updated',
  'Project Duplicated',
  'Project Deleted',
  'Label Created',
  'Label Updated',
  'Label Deleted',
  'Label Attached',
  'Label Detached',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/**
 * What the service tells a workspace of its own webhooks' health, published from the same stream: the
 * workspace's other webhooks may subscribe to them (never delivered to the webhook they are about), the
 * history does not keep them (they are no one's change).
 */
export const OPERATIONAL_TYPES = ['Webhook Failing', 'Webhook Disabled', 'Webhook Recovered'] as const;

/** Every event the service publishes. */
export const OUTBOUND_TYPES = [...CHANGE_TYPES, ...OPERATIONAL_TYPES] as const;
export type OutboundType = (typeof OUTBOUND_TYPES)[number];

/** What each outbound event tells, in a sentence (the AsyncAPI document's message summaries, and GET /webhook-event-types). */
export const OUTBOUND_DESCRIPTIONS: Record<OutboundType, string> = {
  'Project Created': 'A project was created.',
  'Project Updated': "A project's fields changed (a request that changes nothing publishes nothing); `previous` is the project before.",
  'Project Duplicated':
    'A project was copied from `source_slug` (its description, visibility, logo, settings; fresh stats; the caller owns it).',
  'Project Deleted': 'A project was deleted; `data` and `previous` are the project as it was.',
  'Label Created': 'A workspace label was created.',
  'Label Updated': "A label's title or colour changed; `previous` is the label before.",
  'Label Deleted': 'A label was deleted; its links to tasks and projects go with it (no Label Detached for each).',
  'Label Attached': "A label was attached to a task, or added to a project's label set (no `task_uuid`).",
  'Label Detached': "A label was detached from a task, or removed from a project's label set (no `task_uuid`).",
  'Webhook Failing':
    "One of the workspace's webhooks began failing: an attempt to its endpoint failed, its first since a success or since failures long before (`data.failing_since`).",
  'Webhook Disabled':
    "The service turned one of the workspace's webhooks off after its endpoint failed every attempt for days (`data.deactivated_reason`).",
  'Webhook Recovered': "A failing webhook's endpoint answered 2xx again; `failing_since` is when the run of failures it ended began.",
};

/** An outbound type in the dotted form webhook receivers often use (`project.created`). */
export const dottedName = (type: string) => type.toLowerCase().replace(' ', '.');
const byName = <T extends string>(types: readonly T[]) =>
  new Map<string, T>(types.flatMap((t) => [[t, t] as const, [dottedName(t), t] as const]));
const OUTBOUND_BY_NAME = /* @__PURE__ */ byName(OUTBOUND_TYPES);
const CHANGES_BY_NAME = /* @__PURE__ */ byName(CHANGE_TYPES);

/** An outbound type by its bus name (`Project Created`) or its dotted form, or undefined when it is neither. */
export const outboundTypeNamed = (value: string): OutboundType | undefined => OUTBOUND_BY_NAME.get(value);
/** A change's type (what the history keeps) by either name, or undefined. */
export const changeTypeNamed = (value: string): ChangeType | undefined => CHANGES_BY_NAME.get(value);
/** Whether an outbound type is a public change (not one of the operational ones). */
export const isChangeType = (type: OutboundType): type is ChangeType => CHANGES_BY_NAME.has(type);
const OPERATIONAL: ReadonlySet<string> = /* @__PURE__ */ new Set(OPERATIONAL_TYPES);
/** Whether a type (by its bus name) is one of the operational ones: about a webhook, not a change. */
export const isOperationalType = (type: string): type is (typeof OPERATIONAL_TYPES)[number] => OPERATIONAL.has(type);

/** What the rest of the product tells this service, for the projects' stats. */
export const INBOUND_TYPES = [
  'Task Created',
  'Task Completed',
  'Task Reopened',
  'Task Deleted',
  'Member Added',
  'Member Removed',
  'Sprint Created',
  'Sprint Deleted',
] as const;
export type InboundType = (typeof INBOUND_TYPES)[number];
