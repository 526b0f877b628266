import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { InboundEvent } from '#domain/inbound';
import { call } from './api.ts';
import { localStack } from './stack.ts';

let made = 0;
/** An inbound event for the consumer's domain code (applyInboundEvent): each a second after the one before, a minute ahead of now. */
export function inboundEvent(ws: string, projectSlug: string, type: InboundEvent['type'], subject: string): InboundEvent {
  const k = made++;
  return { type, eventId: `ev-${k}`, ws, projectSlug, occurredAt: new Date(Date.now() + 60_000 + (k + 1) * 1_000).toISOString(), subject };
}

/** Sends one inbound event to the local API's queue, as `npm run emit` does (EventBridge PutEvents shape). */
export async function emitInbound(type: string, detail: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/__local/events', {
    body: { Entries: [{ Source: 'tasks-service', DetailType: type, Detail: JSON.stringify(detail), ...extra }] },
  });
  expect(res.status, res.text).toBe(200);
  return res.body as { FailedEntryCount: number; Entries: { EventId?: string }[] };
}

/** The local API's inbound dead letters ({ body, reason } per line); undefined against another server (API_URL) that does not name them. */
export function inboundDeadLetterFile(): string | undefined {
  return process.env.API_URL ? process.env.INBOUND_DLQ_FILE : localStack().inboundDeadLetterFile;
}

/** The reason the dead letter whose body contains `marker` was set aside with, once it is there. */
export async function deadLetterReason(marker: string): Promise<string> {
  const file = inboundDeadLetterFile()!;
  await expect.poll(() => existsSync(file) && readFileSync(file, 'utf8').includes(marker), { timeout: 5_000 }).toBe(true);
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.includes(marker))!;
  return (JSON.parse(line) as { reason: string }).reason;
}
