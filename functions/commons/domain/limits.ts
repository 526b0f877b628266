/** The service's limits, in one place: schemas, use cases and the checker read them here. */
export const MAX_PROJECT_NAME = 255;
export const MAX_DESCRIPTION = 10_000;
export const MAX_LABEL_TITLE = 50;
/**
 * Texts are bounded in bytes too, as answers carry them (UTF-8 inside a JSON string: `"`, `\\`, tabs and
 * line breaks two bytes each): what bounds every answer at the worst input the API accepts. A page of 100
 * projects or webhooks with the longest descriptions stays near 4.2 MB, and a bulk attach's answer (100
 * tasks of 100 labels) near 4 MB, under Lambda's 6 MB (docs/api.md, "Answer sizes").
 */
export const MAX_DESCRIPTION_BYTES = 40_000;
/** A name of 255 characters each of which normalises to three 4-byte code points (12 bytes) still fits. */
export const MAX_PROJECT_NAME_BYTES = 4_096;
export const MAX_LABEL_TITLE_BYTES = 256;
export const MAX_LABELS_PER_TASK = 100;
export const MAX_TASKS_PER_REQUEST = 100;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/**
 * Deepest a page number may reach (page x per_page): DynamoDB has no offset, so page N reads every item
 * before it (at 10,000 deep one request read 10,000 items, strongly consistent, repeatable at a token's
 * rate). Further, cursors are the way: they cost one page whatever the depth.
 */
export const MAX_PAGE_DEPTH = 1_000;
/** Labels one workspace may hold: its label list answers every one of them, unpaged (DESIGN: the whole list). */
export const MAX_LABELS_PER_WORKSPACE = 1_000;
/** How deep objects and arrays may nest in a request body or an inbound event (the API's own nest 3 deep). */
export const MAX_JSON_DEPTH = 32;
/** An Idempotency-Key: visible ASCII, as Stripe and the IETF draft's examples use (a UUID fits). */
export const IDEMPOTENCY_KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/**
 * The instants an inbound event's occurred_at may name: from 2000-01-01 to 5 minutes past the
 * receiver's clock (clocks of services differ a little; an event from the future is an error).
 */
export const INBOUND_EARLIEST = Date.UTC(2000, 0, 1);
export const INBOUND_FUTURE_SKEW_MS = 5 * 60_000;
