import * as z from 'zod';
import { CUT_TEXT_BYTES } from '#domain/activity';
import { CHANGE_TYPES } from '#domain/eventNames';
import { SLUG } from '#domain/slugs';
import { Label } from './answers';

/**
 * What GET /activities answers for each entry (domain/activity.ts builds it): declared once for the
 * OpenAPI document and the suites that check every answer against it.
 */
const slug = z.string().regex(SLUG);

const FieldChange = z
  .object({
    field: z.string().meta({ description: 'The field, nested ones by their dotted path (`settings.task_prefix`).' }),
    from: z.unknown().meta({ description: 'Its value before (null for a create).' }),
    to: z.unknown().meta({ description: 'Its value after (null for a delete).' }),
    cut: z
      .array(z.enum(['from', 'to']))
      .optional()
      .meta({
        description: `Which of \`from\` and \`to\` were cut to their first ${CUT_TEXT_BYTES.toLocaleString('en-US')} bytes of whole characters (the resource has the whole text); absent when neither was.`,
      }),
  })
  .meta({ id: 'FieldChange' });

export const ActivityEntry = z
  .object({
    id: z.string().regex(/^act_[A-Za-z0-9_-]{24}$/),
    type: z.enum(CHANGE_TYPES).meta({ description: 'As the bus event and the webhook body spell it.' }),
    occurred_at: z.iso.datetime({ offset: true }),
    actor: z.object({ username: z.string() }).nullable(),
    company_slug: slug,
    project_slug: slug.nullable().meta({ description: 'The project the change belongs to, if any.' }),
    project_id: z.string().nullable().meta({
      description:
        "That project's stable id: a slug can be taken again after a delete, an id never (`project_id` reads its history). Null: no project, or recorded before ids were kept.",
    }),
    project: z.object({ slug, name: z.string() }).nullable().meta({ description: 'The project as it was then (project changes).' }),
    label: z
      .union([Label, z.object({ id: z.int().min(1), slug })])
      .nullable()
      .meta({ description: 'The label as it was then (label changes, attaches and detaches).' }),
    task_uuid: z.string().nullable(),
    changes: z.array(FieldChange).meta({
      description:
        'One per field the change moved: for an update the fields that changed, for a create or a delete every field of what was created or deleted.',
    }),
    event_id: z.string().meta({ description: "The bus event's `event_id`, and the webhook body's `data.event_id`." }),
    request_id: z
      .string()
      .nullable()
      .meta({ description: 'The X-Request-Id of the request that made the change (null: the service made it).' }),
    idempotency_key: z.string().nullable().meta({ description: "That request's Idempotency-Key, if it sent one." }),
    sequence: z.int().min(1).nullable().meta({
      description:
        "Its place in the workspace's history: 1, 2, 3... in the order entries became readable (null: recorded before places existed).",
    }),
    recorded_at: z.iso.datetime({ offset: true }).meta({ description: 'When it became readable (the time of its place).' }),
  })
  .meta({ id: 'ActivityEntry' });
