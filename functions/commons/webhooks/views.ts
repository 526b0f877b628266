import type * as z from 'zod';
import type { Webhook, WebhookCreated, WebhookSummary, WebhookDelivery, WebhookDeliveryDetail } from './answers';
import type { DeliveryRecord, WebhookRecord } from './entities';

/**
 * A URL as a reader who may not change it sees it: scheme, host and path. Its query and userinfo (where
 * receivers put their own credentials, `?token=...`) and fragment are left out.
 */
function urlForReaders(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}

/**
 * What the API returns for a webhook (never its secret) and for a delivery; typed by answers.ts. The
 * whole URL for a caller who may change the webhook (`wholeUrl`), its public part for one who may only read it.
 */
export function webhookView(w: WebhookRecord, { wholeUrl = true }: { wholeUrl?: boolean } = {}): z.infer<typeof Webhook> {
  return {
    id: w.id,
    url: wholeUrl ? w.url : urlForReaders(w.url),
    events: w.events,
    description: w.description,
    project_slug: w.project_slug ?? null,
    active: w.active,
    failing_since: w.failing_since ?? null,
    deactivated_reason: w.deactivated_reason ?? null,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

/** The webhook as its operational events tell it to others: its URL's host alone. */
export function webhookSummaryView(w: WebhookRecord): z.infer<typeof WebhookSummary> {
  const { url, ...rest } = webhookView(w);
  return { ...rest, host: new URL(url).host };
}

/** The answer of a create: the webhook and, this once, its secret (in clear: the record keeps it sealed). */
export function createdWebhookView(w: WebhookRecord, secret: string): z.infer<typeof WebhookCreated> {
  return { ...webhookView(w), secret };
}

export function deliveryView(d: DeliveryRecord): z.infer<typeof WebhookDelivery> {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_type: d.event_type,
    event_id: d.event_id,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code ?? null,
    last_error: d.last_error ?? null,
    last_response: d.last_response ?? null,
    last_attempt_at: d.last_attempt_at ?? null,
    next_attempt_at: d.status === 'pending' ? (d.next_attempt_at ?? null) : null,
    delivered_at: d.delivered_at ?? null,
    created_at: d.created_at,
  };
}

/** One delivery with its attempt log (GET /webhooks/{id}/deliveries/{delivery_id}). */
export function deliveryDetailView(d: DeliveryRecord): z.infer<typeof WebhookDeliveryDetail> {
  return {
    ...deliveryView(d),
    attempt_log: (d.attempt_log ?? []).map((a) => ({
      at: a.at,
      status_code: a.status_code ?? null,
      error: a.error ?? null,
      duration_ms: a.duration_ms,
      trigger: a.trigger,
    })),
  };
}

export const webhookLocation = (ws: string, id: string) => `/webhooks/${id}?company_slug=${ws}`;
