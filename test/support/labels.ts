import { expect } from 'vitest';
import type { WorkspaceClient } from './api.ts';
import { settledViolations } from './settle.ts';

/** The label tests' shorthands (test/integration/label*.test.ts). */
export const attach = (c: WorkspaceClient, label: string, project: string, body: unknown) =>
  c.post(`/projects-labels/${label}/attach`, body, { project_slug: project });
export const detach = (c: WorkspaceClient, label: string, project: string, body: unknown) =>
  c.del(`/projects-labels/${label}/detach`, body, { project_slug: project });
export const titles = (labels: { title: string }[]) => labels.map((l) => l.title);

/** No violation of the table's invariants once the stream has drained. */
export async function expectConsistent(ws: string) {
  const violations = await settledViolations([ws]);
  expect(violations).toEqual([]);
}
