/**
 * The events this service publishes and consumes, declared once: the publisher (events/outbound.ts)
 * and the consumer (events/inbound.ts) use these names, the CDK stack's bus rule and the local queue
 * read the inbound list, and a test holds docs/events.md to both lists.
 */
export const EVENT_SOURCE = 'project-label-service';

/** One per public change, published from the table's stream (source EVENT_SOURCE). */
export const OUTBOUND_TYPES = [
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
export type OutboundType = (typeof OUTBOUND_TYPES)[number];

/** An outbound type in the dotted form webhook receivers often use (`project.created`). */
export const dottedName = (type: string) => type.toLowerCase().replace(' ', '.');
const BY_NAME = new Map<string, OutboundType>(OUTBOUND_TYPES.flatMap((t) => [[t, t] as const, [dottedName(t), t] as const]));

/** An outbound type by its bus name (`Project Created`) or its dotted form, or undefined when it is neither. */
export const outboundTypeNamed = (value: string): OutboundType | undefined => BY_NAME.get(value);

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
