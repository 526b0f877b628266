/** The bounds of a webhook, in one place (the schemas and the use cases read them). */
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION = 1000;
export const MAX_EVENT_TYPES = 20;
/** Webhooks one workspace may have. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 25;
