import { logger } from '#observability/log';

/**
 * The local stack's own lines (its gateway, queues and stream runner), written as the functions write
 * theirs: one JSON line through the same logger, so `npm start` keeps them in its log file and shows
 * them readably with the rest (docs/operations.md#log-lines). `source` says which part wrote it.
 */
export type LocalLog = (level: 'info' | 'warn' | 'error', message: string, fields: { source: string } & Record<string, unknown>) => void;

export const localLog: LocalLog = (level, message, fields) => logger[level](message, fields);
