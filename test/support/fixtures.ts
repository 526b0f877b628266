import { randomBytes } from 'node:crypto';
import { createLabel } from '#domain/labels';
import { changeLabels } from '#domain/taskLabels';
import { createProject } from '#domain/projects';
import { mapInFlight } from '#store/batches';
import { putNewDelivery } from '#store/webhookDeliveries';
import { writeWebhook } from '#local/sampleWebhooks';
import { uniqueWorkspace } from './api.ts';
import type { Fixture } from './requests.ts';

/**
 * A workspace with a project, a label carried by three of its tasks, and a second label, written
 * in-process through the data layer (faster than HTTP for tests that need many fresh fixtures).
 */
export async function seedFixture(prefix = 'fx', opts: { webhook?: boolean } = {}): Promise<Fixture> {
  const ws = uniqueWorkspace(prefix);
  const seed = { name: 'Seed', username: 'seed' };
  const project = await createProject(ws, { name: 'Fixture Project', owner: seed });
  const label = await createLabel(ws, { title: 'Fixture Label', color: 'FF0000' }, seed);
  const other = await createLabel(ws, { title: 'Other Label', color: '00FF00' }, seed);
  await changeLabels('attach', ws, { labelSlug: label.slug, projectSlug: project.slug, taskUuids: ['task-1', 'task-2', 'task-3'] }, seed);
  await changeLabels('attach', ws, { labelSlug: other.slug, projectSlug: project.slug, taskUuids: ['task-1'] }, seed);
  const fixture: Fixture = { ws, project: project.slug, label: label.slug, task: 'task-1' };
  return opts.webhook ? { ...fixture, ...(await seedWebhook(ws)) } : fixture;
}

/**
 * A webhook of the workspace (to a documentation address: a ping or redelivery fails) and one failed
 * delivery of it, for the tests of the webhook routes; written through the store, as a webhook the
 * service made.
 */
async function seedWebhook(ws: string): Promise<{ webhook: string; delivery: string }> {
  const now = new Date().toISOString();
  const webhook = `wh_${randomBytes(12).toString('hex')}`;
  const delivery = `msg_${Date.now().toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`;
  await writeWebhook({
    id: webhook,
    workspace: ws,
    url: 'https://hooks.example.com/fixture',
    events: ['Project Deleted'],
    description: 'Fixture',
  });
  const payload = JSON.stringify({ type: 'Webhook Ping', timestamp: now, data: { webhook_id: webhook, company_slug: ws } });
  await putNewDelivery({
    id: delivery,
    webhook_id: webhook,
    workspace: ws,
    event_type: 'Webhook Ping',
    event_id: 'fixture',
    payload,
    status: 'failed',
    attempts: 1,
    created_at: now,
  });
  return { webhook, delivery };
}

/** `count` fixtures, `inFlight` seeded at a time (each in a workspace of its own), in order. */
export function seedFixtures(count: number, prefix = 'fx', inFlight = 4, opts: { webhook?: boolean } = {}): Promise<Fixture[]> {
  return mapInFlight(Array.from({ length: count }), inFlight, () => seedFixture(prefix, opts));
}
