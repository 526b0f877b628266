import * as z from 'zod';
import type { OutboundType } from '#domain/eventNames';
import { SLUG } from '#domain/slugs';
import { WebhookSummary } from '#webhooks/answers';
import { Label, Project } from './answers';

/**
 * What each outbound event carries in its `detail`, declared once: the publisher (events/outbound.ts)
 * is typed by these schemas (a type-only import: no function bundles them), the AsyncAPI document
 * (lib/asyncapi) is built from them, and the test suite validates the events its files publish locally against it.
 */
const slug = z.string().regex(SLUG);
const timestamp = z.iso.datetime({ offset: true });

const Actor = z.object({ username: z.string() }).nullable().meta({
  id: 'Actor',
  description:
    "Who made the change: the token's user, `system` for what the service does itself (a deleted task's labels taken off); null when a change names no one.",
});

/** A label a link event names: the label as it is (or as it was deleted), or only its id and slug once even its deletion is gone. */
const LinkedLabel = z.union([Label, z.strictObject({ id: z.int().min(1), slug })]).meta({ id: 'LinkedLabel' });

const common = {
  event_id: z.string().meta({ description: 'Stable across redeliveries of the same change: deduplicate on it.' }),
  company_slug: slug,
  occurred_at: timestamp.meta({
    description: "When the change happened (the EventBridge event's time is the same instant, to the second).",
  }),
  actor: Actor,
};

const projectCreated = z.strictObject({ ...common, data: Project });
const projectChanged = z.strictObject({ ...common, data: Project, previous: Project });
const projectDuplicated = z.strictObject({
  ...common,
  data: Project,
  source_slug: slug.meta({ description: 'The project it was copied from.' }),
});
const labelCreated = z.strictObject({ ...common, data: Label });
const labelChanged = z.strictObject({ ...common, data: Label, previous: Label });
const labelLinked = z.strictObject({
  ...common,
  project_slug: slug,
  task_uuid: z.string().optional().meta({ description: "The task; absent when the label joined or left the project's label set." }),
  label: LinkedLabel,
});

/** An operational event: the webhook it is about after the change (its URL's host alone, never its secret). */
const webhookHealth = z.strictObject({ ...common, data: WebhookSummary });
const webhookRecovered = z.strictObject({
  ...common,
  data: WebhookSummary,
  failing_since: timestamp.meta({ description: 'When the run of failures this success ended began.' }),
});

export const OUTBOUND_DETAILS = {
  'Project Created': projectCreated,
  'Project Updated': projectChanged,
  'Project Duplicated': projectDuplicated,
  'Project Deleted': projectChanged,
  'Label Created': labelCreated,
  'Label Updated': labelChanged,
  'Label Deleted': labelChanged,
  'Label Attached': labelLinked,
  'Label Detached': labelLinked,
  'Webhook Failing': webhookHealth,
  'Webhook Disabled': webhookHealth,
  'Webhook Recovered': webhookRecovered,
} as const satisfies Record<OutboundType, z.ZodType>;

/** What one outbound event of type T carries. */
export type OutboundDetail<T extends OutboundType> = z.infer<(typeof OUTBOUND_DETAILS)[T]>;
