import { MINUTE, SECOND } from '#domain/durations';
import { keys } from '#store/keys';
import { webhookBreaker } from '#webhooks/store/webhookBreaker';
import { HEALTH_QUIET_MS } from '#webhooks/store/webhookHealth';
import { retryWait } from './decide';
import type { WebhookRecord } from './entities';
import { probeMessage, type WebhookQueue } from './queue';
import { deliverySettings, MAX_QUEUE_DELAY_MS } from './settings';

/**
 * A failing endpoint's circuit breaker: it costs the lanes one attempt at a time. Closed while the
 * endpoint answers (or has failed for less than twice the schedule's first wait: a blip, which its own
 * retry, on time, ends). Open once it has failed longer: every delivery then waits, parked, without
 * an attempt, behind one probe: a real attempt of the oldest waiting delivery, made on the retry lane
 * on a schedule of its own (probes.ts). A probe that fails arms the next, further off (the retry
 * schedule's waits, at most 30 minutes); one that succeeds closes the breaker (the run of failures
 * ends: webhookHealth.ts) and the waiting deliveries go out, oldest first. Its state lives on the
 * endpoint's health item (webhooks/store/webhookBreaker.ts), off the workspace's partition.
 */

/** The longest wait between two probes: a dead endpoint costs one answer time in this long. */
const MAX_PROBE_WAIT_MS = 30 * MINUTE;
/** A chain of probes whose next probe was due this long ago (its message or its write lost to an error) is armed again. */
const PROBE_LOST_MS = 5 * MINUTE;

/**
 * How long an endpoint fails before the breaker opens: twice the schedule's first wait, and at least 5 s
 * (a local schedule of milliseconds would otherwise open it on any slow moment of the lanes).
 */
export const opensAfterMs = (retriesMs: number[]) => Math.max(5 * SECOND, 2 * (retriesMs[0] ?? 0));

/** The wait before the probe after `failed` failed probes: the retry schedule's wait of that rank (its last repeating), at most 30 minutes, jittered as retries are. */
export function probeWait(failed: number, retriesMs: number[], random = Math.random): number {
  const scheduled = retriesMs.length === 0 ? SECOND : retriesMs[Math.min(failed, retriesMs.length - 1)]!;
  return retryWait(Math.min(scheduled, MAX_PROBE_WAIT_MS), undefined, MAX_PROBE_WAIT_MS, random);
}

/**
 * How long a parked delivery waits at most with nothing to send it: the time a failing endpoint takes to
 * be turned off, and never less than a lost chain's re-arming and two probes' waits (short local
 * settings included), so that a probe always finds it still parked. A probe's success sends it long
 * before; failing that, the sweeper finds it then, and its attempt either goes or ends (its webhook
 * turned off meanwhile).
 */
export const parkedUntil = (now: number) =>
  new Date(now + Math.max(deliverySettings().deactivateAfterMs, PROBE_LOST_MS + 2.4 * MAX_PROBE_WAIT_MS)).toISOString();

/** Queues the probe due at `due` (a hop of at most 15 minutes when it is further off: the message waits again). */
export const queueProbe = (lane: WebhookQueue, w: Pick<WebhookRecord, 'workspace' | 'id'>, due: string, now: number) =>
  lane.later(probeMessage(w, due), Math.max(0, Math.min(MAX_QUEUE_DELAY_MS, Date.parse(due) - now)));

/**
 * How long after a run's last failure kept a new failure still belongs to it: the schedule's longest wait
 * and a fifth (its jitter), a minute, and the minute a run's failures go unwritten (webhookHealth.ts).
 * Failures further apart are separate outages; a run quiet for longer is over.
 */
export const runFreshForMs = (retriesMs: number[]) => 1.2 * Math.max(...retriesMs, 0) + MINUTE + HEALTH_QUIET_MS;

/** How long before its run began a delivery may still wait: its retries, under way when the run began (their span, and a fifth). */
export const retriesSpanMs = () => 1.2 * deliverySettings().retriesMs.reduce((a, b) => a + b, 0);

/**
 * Whether an attempt of `webhook` due now (of the delivery `deliveryId`) may go: yes while the breaker is
 * closed; no while it is open, and then the delivery parks until `until`. The first delivery to find the
 * breaker open without a probe armed (or with its chain lost) arms the first probe and queues its message.
 * A delivery of an event from before the run's retries (an old event redriven, say) is never parked: the
 * probes and releases look for waiting deliveries from there on.
 */
export async function breakerGate(
  webhook: WebhookRecord,
  deliveryId: string,
  lane: WebhookQueue,
  now: number,
): Promise<{ open: false } | { open: true; until: string }> {
  const { retriesMs } = deliverySettings();
  const opensAfter = opensAfterMs(retriesMs);
  // The webhook shows its run (written when it starts): one too young, or none, needs no read.
  if (webhook.failing_since === undefined || now - Date.parse(webhook.failing_since) < opensAfter) return { open: false };
  if (deliveryId < keys.deliveryIdPrefix(Date.parse(webhook.failing_since) - retriesSpanMs())) return { open: false };
  const at = new Date(now + probeWait(0, retriesMs)).toISOString();
  const iso = (ms: number) => new Date(ms).toISOString();
  const found = await webhookBreaker.arm(webhook.workspace, webhook.id, at, {
    openedBy: iso(now - opensAfter),
    freshAfter: iso(now - runFreshForMs(retriesMs)),
    lostBefore: iso(now - PROBE_LOST_MS),
  });
  if (found === 'armed') await queueProbe(lane, webhook, at, now);
  else if (!found.open) return { open: false };
  return { open: true, until: parkedUntil(now) };
}
