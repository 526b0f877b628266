/**
 * What a webhook and one of its deliveries are, declared once: the use cases of this room work on
 * them, the store (webhooks/store/webhooks.ts) keeps them, the views shape them. Pure declarations.
 */

import type { Sealed } from '#store/sealing';

/** A subscription: where a workspace's events are delivered, which ones, and how they are signed. */
export interface WebhookRecord {
  id: string;
  workspace: string;
  url: string;
  /** Event types (`Project Created`, ...) or `*` for every one. */
  events: string[];
  description: string;
  /** Only the events of this project (by slug), when set. */
  project_slug?: string;
  active: boolean;
  /** `whsec_` + base64 of 32 random bytes, sealed (store/sealing.ts): never shown again after creation or rotation. */
  secret: Sealed;
  /** Secrets replaced by rotations, each signing beside the current one until its `expires_at` (newest first, a few at most). */
  previous_secrets?: PreviousSecret[];
  /** Since when every attempt has failed (cleared by a success): five days of it deactivate the webhook. */
  failing_since?: string;
  /** The last failed attempt: failures further apart than the longest retry wait are not one outage. */
  last_failure_at?: string;
  /** Why the service deactivated it (absent while active, or when a user turned it off). */
  deactivated_reason?: string;
  created_at: string;
  updated_at: string;
  /** When its URL was set (at creation or by the last change of `url`): deliveries made before were made for another URL. */
  url_set_at?: string;
  /** How many times a user changed it: what If-Match writes are conditional on. */
  rev: number;
}

/**
 * Since when the webhook's URL has been the one it has: its `url_set_at`, or for a webhook saved before
 * that was kept, its last change (the URL may have changed then, so nothing older counts as made for it).
 */
export const urlSetAt = (w: WebhookRecord): string => w.url_set_at ?? w.updated_at;

/** Whether a delivery was made for the webhook's URL as it is now (redeliveries and recoveries send no other). */
export const madeForCurrentUrl = (d: Pick<DeliveryRecord, 'created_at'>, w: WebhookRecord): boolean => d.created_at >= urlSetAt(w);

/** Throws when the webhook, carrying `events`, may not be pointed at by the caller (the read scopes of what they carry). */
export type CarryGuard = (events: readonly string[]) => void;

/** A secret a rotation replaced, still signing until `expires_at`. */
export interface PreviousSecret {
  secret: Sealed;
  expires_at: string;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event to one webhook: the same `id` (the `webhook-id` header) on every attempt. */
export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  workspace: string;
  event_type: string;
  /** The event's own id (`event_id` of the bus event), or the ping's. */
  event_id: string;
  /**
   * The body as delivered, byte for byte on every attempt (only the timestamp and signatures change).
   * Unless small (at most 512 bytes), kept in an item of its own beside the delivery, so reading deliveries
   * reads no large payload: absent then from a delivery read back; a send reads it (deliveryPayload).
   */
  payload?: string;
  status: DeliveryStatus;
  /** Every attempt, the manual ones (redeliver, ping) included. */
  attempts: number;
  /** The automatic attempts only: the retry schedule's position (absent: none yet). */
  auto_attempts?: number;
  /** While an automatic attempt holds the delivery (a duplicate message finds it held and sends nothing). */
  claimed_until?: string;
  last_status_code?: number;
  last_error?: string;
  /** The answer's first characters, for the deliveries log. */
  last_response?: string;
  last_attempt_at?: string;
  /** When the next automatic attempt is due (only while pending). */
  next_attempt_at?: string;
  /** Schedules a recovery brought forward: a retry message due at one of them is stale (sends nothing). */
  superseded?: string[];
  /** How often a sweep found it lost and queued it again since its last recorded attempt (sweeper.ts ends it past MAX_SWEEPS). */
  requeues?: number;
  delivered_at?: string;
  created_at: string;
  /** Each attempt, oldest first (the first MAX_LOGGED_ATTEMPTS; `attempts` counts them all). */
  attempt_log?: AttemptLogEntry[];
}

/** One attempt of a delivery, as its log keeps it. */
export interface AttemptLogEntry {
  at: string;
  /** The endpoint's answer, or why there was none. */
  status_code?: number;
  error?: string;
  duration_ms: number;
  /** Made by the schedule, or on request (a ping, a redelivery). */
  trigger: 'automatic' | 'manual';
}

/** Attempts a delivery's log keeps: every automatic one (8) and dozens made on request, so an item stays small. */
export const MAX_LOGGED_ATTEMPTS = 50;
