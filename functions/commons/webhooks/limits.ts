/** The bounds of a webhook, in one place (the schemas and the use cases read them). */
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION = 1000;
/** Its bytes as answers carry them (UTF-8 in JSON), so a page of 100 webhooks stays small (docs/api.md, "Answer sizes"). */
export const MAX_DESCRIPTION_BYTES = 4_000;
export const MAX_EVENT_TYPES = 20;
/** Webhooks one workspace may have. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 25;
/**
 * Pings and redeliveries of one workspace under way at once. Each holds one of the API's functions while
 * its endpoint answers (up to the 10 s send timeout): so many at most, whatever the caller's rate, so one
 * workspace's endpoints never hold more than that share of the account's concurrency.
 */
export const SENDS_ON_REQUEST_PER_WORKSPACE = 2;
/** How long a slot is held at most: longer than a request can run (functions time out at 20 s). */
export const SEND_SLOT_LEASE_SECONDS = 30;
