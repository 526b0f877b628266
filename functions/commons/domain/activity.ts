import { DAY, DURATION_FORMAT, duration } from './durations';
import type { ActivityEntry, FieldChange } from './entities';
import type { ChangeType } from './eventNames';

export type { ActivityEntry };

/**
 * The workspace's history (docs/api.md, "Reading history"): one entry per change the service
 * publishes, written from the table's stream beside the bus event and the webhook deliveries of the
 * same change, and kept for ACTIVITY_RETENTION. What an entry says, and how its list is asked for.
 */

/** The contexts GitScrum's clients name; the last three belong to other services and hold nothing here. */
export const ACTIVITY_CONTEXTS = ['company', 'project', 'sprint', 'sprints', 'user_stories'] as const;
type ActivityContext = (typeof ACTIVITY_CONTEXTS)[number];
export const FOREIGN_CONTEXTS: ReadonlySet<ActivityContext> = new Set(['sprint', 'sprints', 'user_stories']);

/** What a list of the history asks for (validated: wire/activitySchemas.ts). */
export interface ActivityQuery {
  context: 'company' | 'project';
  projectSlug?: string | undefined;
  /** A project's stable id: its history, whatever project has its slug now. */
  projectId?: string | undefined;
  task?: string | undefined;
  types?: ChangeType[] | undefined;
  actor?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  order: 'asc' | 'desc';
}

/**
 * Each field whose value differs between two views of one thing, nested objects by their dotted path
 * (`settings.task_prefix`); `leftOut` names fields that are not changes anyone made (times, derived counts).
 */
export function changedFields(before: object | null, after: object | null, leftOut: ReadonlySet<string>, prefix = ''): FieldChange[] {
  const was = (before ?? {}) as Record<string, unknown>;
  const now = (after ?? {}) as Record<string, unknown>;
  const names = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return names.flatMap((name) => {
    const field = `${prefix}${name}`;
    if (leftOut.has(field)) return [];
    const from = was[name] ?? null;
    const to = now[name] ?? null;
    if (isPlainObject(from) || isPlainObject(to)) {
      return changedFields(isPlainObject(from) ? from : null, isPlainObject(to) ? to : null, leftOut, `${field}.`);
    }
    return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ field, from: before ? from : null, to: after ? to : null }];
  });
}

/**
 * The most of a text value an entry keeps in a change's `from` or `to`: a description can hold about
 * 64 KB, and a page of entries holding whole ones would be megabytes. A longer text is cut to the
 * longest run of whole characters (code points) within this many UTF-8 bytes, and the change says
 * which side was cut (`cut`); the resource itself has the whole value.
 */
export const CUT_TEXT_BYTES = 1024;

/** The changes with every longer text cut (CUT_TEXT_BYTES). */
export function cutChanges(changes: FieldChange[]): FieldChange[] {
  return changes.map((c) => {
    const from = cutText(c.from);
    const to = cutText(c.to);
    const cut = [...(from === c.from ? [] : ['from' as const]), ...(to === c.to ? [] : ['to' as const])];
    return cut.length === 0 ? c : { ...c, from, to, cut };
  });
}

function cutText(value: unknown): unknown {
  if (typeof value !== 'string' || Buffer.byteLength(value) <= CUT_TEXT_BYTES) return value;
  let bytes = 0;
  let end = 0;
  for (const ch of value) {
    bytes += Buffer.byteLength(ch);
    if (bytes > CUT_TEXT_BYTES) break;
    end += ch.length;
  }
  return value.slice(0, end);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const DEFAULT_RETENTION_MS = 90 * DAY;

/** How ACTIVITY_RETENTION is written, for the sentence that refuses a value. */
export const RETENTION_ACCEPTS = `a duration above zero and at most 3650d, ${DURATION_FORMAT}, e.g. 90d`;
const MAX_RETENTION_MS = 3650 * DAY;

/** ACTIVITY_RETENTION's value (milliseconds), or undefined when it is not written so. */
export function parseRetention(value: string): number | undefined {
  const ms = duration(value);
  return ms !== undefined && ms > 0 && ms <= MAX_RETENTION_MS ? ms : undefined;
}

/**
 * How long entries are kept: ACTIVITY_RETENTION where it is set (the local stack's settings; the deployed
 * stack leaves it unset), else 90 days. A bad value throws, naming it (npm start refuses it at its start).
 */
export function retentionMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.ACTIVITY_RETENTION;
  if (value === undefined || value === '') return DEFAULT_RETENTION_MS;
  const ms = parseRetention(value);
  if (ms === undefined) throw new Error(`ACTIVITY_RETENTION is ${JSON.stringify(value)}: use ${RETENTION_ACCEPTS}.`);
  return ms;
}
