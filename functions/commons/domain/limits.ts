/** The service's limits, in one place: schemas, use cases and the checker read them here. */
export const MAX_PROJECT_NAME = 255;
export const MAX_DESCRIPTION = 10_000;
export const MAX_LABEL_TITLE = 50;
export const MAX_LABELS_PER_TASK = 100;
export const MAX_TASKS_PER_REQUEST = 100;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
