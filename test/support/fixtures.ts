import { createLabel } from '#domain/labels';
import { changeLabels } from '#domain/taskLabels';
import { createProject } from '#domain/projects';
import { mapInFlight } from '#store/batches';
import { uniqueWorkspace } from './api.ts';
import type { Fixture } from './requests.ts';

/**
 * A workspace with a project, a label carried by three of its tasks, and a second label, written
 * in-process through the data layer (faster than HTTP for tests that need many fresh fixtures).
 */
export async function seedFixture(prefix = 'fx'): Promise<Fixture> {
  const ws = uniqueWorkspace(prefix);
  const seed = { name: 'Seed', username: 'seed' };
  const project = await createProject(ws, { name: 'Fixture Project', owner: seed });
  const label = await createLabel(ws, { title: 'Fixture Label', color: 'FF0000' }, seed);
  const other = await createLabel(ws, { title: 'Other Label', color: '00FF00' }, seed);
  await changeLabels('attach', ws, { labelSlug: label.slug, projectSlug: project.slug, taskUuids: ['task-1', 'task-2', 'task-3'] }, seed);
  await changeLabels('attach', ws, { labelSlug: other.slug, projectSlug: project.slug, taskUuids: ['task-1'] }, seed);
  return { ws, project: project.slug, label: label.slug, task: 'task-1' };
}

/** `count` fixtures, `inFlight` seeded at a time (each in a workspace of its own), in order. */
export function seedFixtures(count: number, prefix = 'fx', inFlight = 4): Promise<Fixture[]> {
  return mapInFlight(Array.from({ length: count }), inFlight, () => seedFixture(prefix));
}
