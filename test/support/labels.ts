import { expect } from 'vitest';
import type { LabelRecord } from '#domain/entities';
import { titleKey } from '#domain/text';
import { putItems } from '#store/batches';
import { ItemType, keys } from '#store/keys';
import { labelItem, titleGuardItem } from '#store/labelItem';
import { labelCopyItems } from '#store/labelCopyLayout';
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

/**
 * `count` labels written straight to the table (slugs `seeded-1` to `seeded-<count>`, ids 1 to count), as a workspace
 * whose labels were made before they were counted holds them (its first create counts them): for tests whose subject is
 * not the create. Each with its copies, as every label of a table whose labels are copied has them (store/copies.ts),
 * unless `withCopies` is false (a test that reads no label). Answers the slugs.
 */
export async function seedLabels(
  ws: string,
  count: number,
  title: (i: number) => string = (i) => `Seeded ${i}`,
  withCopies = true,
): Promise<string[]> {
  const now = new Date().toISOString();
  const labels: LabelRecord[] = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    slug: `seeded-${i + 1}`,
    title: title(i + 1),
    color: 'FF5733',
    created_at: now,
    updated_at: now,
  }));
  const items = labels.flatMap((label) => [
    labelItem(ws, label, titleKey),
    titleGuardItem(ws, label.title, label, titleKey),
    ...(withCopies ? labelCopyItems(ws, { ...label, titleNorm: titleKey(label.title) }) : []),
  ]);
  items.push({ ...keys.labelIdCounterOwn(ws), type: ItemType.labelIdCounter, workspace: ws, next_id: count });
  await putItems(items);
  return labels.map((l) => l.slug);
}
