import {
  dottedName,
  isOperationalType,
  OUTBOUND_DESCRIPTIONS,
  OUTBOUND_TYPES,
  type OutboundType,
  outboundTypeNamed,
} from '#domain/eventNames';

/**
 * The event types a webhook can subscribe to: every outbound event of the service, by the name it
 * has on the bus (`Project Created`) or in the dotted form webhook receivers often use
 * (`project.created`); `*` for every change (the operational events, `Webhook Failing`, ..., only by
 * their names). The ping is delivered on request only.
 */
export const ALL_EVENTS = '*';
export const PING_TYPE = 'Webhook Ping';

/** The bus name of a subscribable type in either spelling, `*`, or undefined when it is none. */
export function subscribableType(value: string): OutboundType | typeof ALL_EVENTS | undefined {
  return value === ALL_EVENTS ? ALL_EVENTS : outboundTypeNamed(value);
}

/**
 * Whether the webhook subscribes to events of `type` (a bus name) now: `*` is every change, an operational
 * event only by its name. A delivery of a type it no longer subscribes to is not sent (a token that may
 * change its URL was checked for what it carries now, not for what it once did).
 */
export function subscribesTo(webhook: { events: readonly string[] }, type: string): boolean {
  return webhook.events.includes(type) || (webhook.events.includes(ALL_EVENTS) && !isOperationalType(type));
}

/** What the refusal of an unknown type says the known ones are. */
export const KNOWN_TYPES_SENTENCE = `use "*" or event types among ${OUTBOUND_TYPES.map((t) => `"${t}"`).join(', ')} (or their dotted forms, e.g. "${dottedName(OUTBOUND_TYPES[0])}")`;

/** The types a webhook may subscribe to, as GET /webhook-event-types lists them (answers.ts, WebhookEventType). */
export function webhookEventTypes() {
  return OUTBOUND_TYPES.map((name) => ({ name, dotted_name: dottedName(name), description: OUTBOUND_DESCRIPTIONS[name] }));
}
