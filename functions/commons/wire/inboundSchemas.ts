import * as z from 'zod/mini';
import { INBOUND_TYPES, type InboundType } from '#domain/eventNames';
import { slugParam, taskUuid } from './validation';

/**
 * What an inbound event looks like on the wire (an EventBridge event, as SQS delivers it): the
 * consumer (events/inbound.ts) validates with these declarations and the AsyncAPI document
 * (lib/asyncapi) is built from them; the rules beyond the envelope (the subject, the id and time
 * fallbacks) are stated beside it there, and a property test holds document and consumer to the
 * same verdict (test/unit/asyncapi.test.ts).
 */

/** An ISO 8601 date-time with its offset (Z or ±hh:mm): the only spelling of an instant accepted. */
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A task or sprint id of the other services (the task_uuid rule of the API). */
const subjectId = taskUuid;
/** A username as the product spells it (an e-mail address, say): 1-128 characters, no control characters. */
const username = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, 'must be 1-128 characters without control or format characters'),
  );

/** The member of `detail` that names what each event is about (required for that type). */
export const INBOUND_SUBJECT: Record<InboundType, 'task_uuid' | 'username' | 'sprint_uuid'> = {
  'Task Created': 'task_uuid',
  'Task Completed': 'task_uuid',
  'Task Reopened': 'task_uuid',
  'Task Deleted': 'task_uuid',
  'Member Added': 'username',
  'Member Removed': 'username',
  'Sprint Created': 'sprint_uuid',
  'Sprint Deleted': 'sprint_uuid',
};

/** What each accepted event does to its project's stats, in a sentence (the AsyncAPI document's summaries). */
export const INBOUND_DESCRIPTIONS: Record<InboundType, string> = {
  'Task Created': 'A task of the project was created: tasks +1.',
  'Task Completed': 'A task was completed: completed +1 (only on a real change; last writer by occurred_at wins).',
  'Task Reopened': 'A task was reopened: completed -1 (only on a real change; last writer by occurred_at wins).',
  'Task Deleted': 'A task was deleted: tasks -1 (completed -1 if it was); its labels come off. Nothing brings it back.',
  'Member Added': 'A member joined the project: members +1 (the owner counts once, always).',
  'Member Removed': 'A member left the project: members -1 (the owner counts once, always).',
  'Sprint Created': 'A sprint of the project was created: sprints +1.',
  'Sprint Deleted': 'A sprint was deleted: sprints -1. Nothing brings it back.',
};

/**
 * The event's envelope. Beyond it: the member INBOUND_SUBJECT names is required; an event id
 * (`detail.event_id`, else the envelope's `id`) and an instant (`detail.occurred_at`, else `time`,
 * in ISO_INSTANT's spelling) are required; the instant lies in the accepted window (domain/limits.ts).
 */
export const inboundEnvelope = z.object({
  id: z.optional(z.string()),
  time: z.optional(z.string()),
  'detail-type': z.enum(INBOUND_TYPES),
  detail: z.object({
    event_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    // The consumer reads the instant with ISO_INSTANT's spelling (at most nine digits of fraction) too.
    occurred_at: z.optional(z.iso.datetime({ offset: true }).check(z.regex(ISO_INSTANT))),
    company_slug: slugParam,
    project_slug: slugParam,
    task_uuid: z.optional(subjectId),
    username: z.optional(username),
    sprint_uuid: z.optional(subjectId),
  }),
});
