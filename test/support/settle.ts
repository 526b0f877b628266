import { expect, inject } from 'vitest';
import { checkTable } from '#checker/invariants';
import { streamCaughtUp } from '#local/streams';
import type { WorkspaceClient } from './api.ts';

/**
 * Counters and cascades follow writes through the table's stream (the local API's stream processor),
 * within moments. DESIGN.md promises them exact once the stream has drained: these wait for that.
 */
const DRAIN_LIMIT_MS = 60_000;

/**
 * Resolves once the local API's stream processor has handled everything written before the call: its
 * status file says it read every shard, found nothing new, and that read began after this call began.
 * Against another server (API_URL) with no status file, it polls the checker instead (see below).
 */
export async function streamDrained(): Promise<void> {
  const file = process.env.API_URL ? process.env.STREAM_STATUS_FILE : inject('streamStatusFile');
  if (file) await streamCaughtUp(file, new Date().toISOString(), DRAIN_LIMIT_MS);
}

/** The workspaces' invariant violations once the stream has drained. */
export async function settledViolations(workspaces: string[]): Promise<string[]> {
  await streamDrained();
  if (process.env.API_URL && !process.env.STREAM_STATUS_FILE) {
    let last: string[] = [];
    await expect
      .poll(async () => (last = (await checkTable(workspaces)).violations), { timeout: 20_000, interval: 500 })
      .toEqual([])
      .catch(() => undefined);
    return last;
  }
  return (await checkTable(workspaces)).violations;
}

/** A project's `labels_count` as the API answers it once the stream has drained. */
export async function settledLabelsCount(c: Pick<WorkspaceClient, 'get'>, project: string, expected: number): Promise<void> {
  await streamDrained();
  expect((await c.get(`/projects/${project}/stats`)).body.data.labels_count).toBe(expected);
}
