import { expect } from 'vitest';
import { checkTable } from '#checker/invariants';
import { apiUrl, type WorkspaceClient } from './api.ts';

/**
 * Counters and cascades follow writes through the table's stream (the local API's stream processor),
 * within moments. docs/api.md promises them exact once the stream has drained: these wait for that.
 */
const DRAIN_LIMIT_MS = 60_000;

/**
 * Resolves once the local API's stream processor has handled everything written before the call (it
 * answers POST /__local/stream/caught-up then). False when the API is not a local one (no such path):
 * callers then poll for what they need (see below).
 */
export async function streamDrained(): Promise<boolean> {
  const res = await fetch(`${apiUrl()}/__local/stream/caught-up`, { method: 'POST', signal: AbortSignal.timeout(DRAIN_LIMIT_MS) });
  await res.arrayBuffer();
  return res.status === 200;
}

/** The workspaces' invariant violations once the stream has drained. */
export async function settledViolations(workspaces: string[]): Promise<string[]> {
  if (!(await streamDrained())) {
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
