/**
 * The names of the events this service publishes and consumes (docs/events.md), with no code
 * behind them: the CDK stack reads them too (the bus rule, the stream filter).
 */
export const EVENT_SOURCE = 'project-label-service';

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
