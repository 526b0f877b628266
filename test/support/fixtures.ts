import { storedText } from '#store/sealing';
import { sealSecret } from '#webhooks/subscriptions';
import { randomBytes, randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { scanTable } from '#checker/invariants';
import { createLabel } from '#domain/labels';
import { changeLabels } from '#domain/taskLabels';
import { createProject } from '#domain/projects';
import { chunk, mapInFlight } from '#store/batches';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { AGAIN, RETRY, withRetries } from '#store/retry';
import { tableName } from '#store/table';
import { putNewDelivery } from '#webhooks/store/webhookDeliveries';
import { shardOfDelivery } from '#webhooks/store/deliverySpread';
import { writeWebhook } from '#local/sampleWebhooks';
import { newSecret } from '#webhooks/signing';
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

const newWebhookId = () => `wh_${randomBytes(12).toString('hex')}`;
const newDeliveryId = () => `msg_${Date.now().toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`;

/**
 * A webhook of the workspace (to a documentation address: a ping or redelivery fails) and one failed
 * delivery of it, for the tests of the webhook routes; written through the store, as a webhook the
 * service made.
 */
async function seedWebhook(ws: string): Promise<{ webhook: string; delivery: string }> {
  const webhook = newWebhookId();
  const delivery = newDeliveryId();
  await writeWebhook({
    id: webhook,
    workspace: ws,
    url: 'https://hooks.example.com/fixture',
    events: ['Project Deleted'],
    description: 'Fixture',
  });
  // Made after the webhook was written: a delivery made before its URL was set is never redelivered (a 409).
  const now = new Date().toISOString();
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

/** A fixture's items as the stream left them (its receipts aside), to copy (cloneFixtures). */
export interface FixtureItems {
  fixture: Fixture;
  items: Record<string, unknown>[];
  projectId: string;
  /** The webhook's signing secret, when the fixture has a webhook: each copy's webhook gets its own. */
  secret?: string;
}

/** `fixture`'s items now (seeded by seedFixture, the stream caught up with it), for cloneFixtures. */
export async function fixtureItems(fixture: Fixture): Promise<FixtureItems> {
  const items = (await scanTable([fixture.ws])).filter((i) => i.type !== ItemType.streamReceipt);
  const project = items.find((i) => i.type === ItemType.project && i.slug === fixture.project);
  if (!project) throw new Error(`no project ${fixture.project} in workspace ${fixture.ws}`);
  const webhook = items.find((i) => i.type === ItemType.webhook);
  return { fixture, items, projectId: String(project.id), ...(webhook ? { secret: String(webhook.secret) } : {}) };
}

/**
 * `count` copies of a fixture, each in a workspace of its own: its items (fixtureItems: what the
 * stream derived included) written again with the workspace, the project's id, the webhook's and
 * delivery's ids and the webhook's secret replaced. A copy is a couple of batch writes where a
 * fixture is about ten calls through the data layer and eight more of stream work. Its stream
 * records are not for the stream processor (what it would derive is copied already): the caller
 * moves past them. test/reliability/fault-injection/cloned-fixtures.test.ts holds a copy to be a
 * seeded fixture, item for item.
 */
export async function cloneFixtures({ fixture, items, projectId, secret }: FixtureItems, count: number, prefix = 'fx'): Promise<Fixture[]> {
  const text = JSON.stringify(items);
  const copies: Fixture[] = [];
  const requests: { PutRequest: { Item: Record<string, unknown> } }[] = [];
  for (let n = 0; n < count; n++) {
    const copy: Fixture = { ...fixture, ws: uniqueWorkspace(prefix) };
    const swaps: [string, string][] = [
      [fixture.ws, copy.ws],
      [projectId, randomUUID()],
    ];
    if (fixture.webhook) swaps.push([fixture.webhook, (copy.webhook = newWebhookId())]);
    if (fixture.delivery) {
      copy.delivery = newDeliveryId();
      // Its shard of the due index follows from its id (keys.dueShard): the copy's from the copy's.
      swaps.push([`"${keys.dueShard(fixture.delivery)}"`, `"${keys.dueShard(copy.delivery)}"`], [fixture.delivery, copy.delivery]);
    }
    // The copy's own secret, sealed for its own webhook (a sealed value opens only where it was sealed).
    if (secret) swaps.push([secret, storedText(await sealSecret({ workspace: copy.ws, id: copy.webhook! }, newSecret()))]);
    const copied = swaps.reduce((t, [from, to]) => t.replaceAll(from, to), text);
    // The delivery's items (it, its payload, its attempts) in the shard of the copy's id (deliveryLayout.ts).
    const shard = copy.delivery ? keys.webhookDeliveries(copy.ws, copy.webhook!, await shardOfDelivery(copy.delivery)) : undefined;
    for (const Item of JSON.parse(copied) as Record<string, unknown>[]) {
      if (shard && String(Item.PK).startsWith('WEBHOOK#') && String(Item.SK).includes(copy.delivery!)) Item.PK = shard;
      requests.push({ PutRequest: { Item } });
    }
    copies.push(copy);
  }
  // Items left unprocessed are sent again as the store sends them (RETRY.unprocessed).
  await mapInFlight(chunk(requests, 25), 4, async (batch) => {
    let pending = batch;
    await withRetries(RETRY.unprocessed, 'fixture copies left unwritten', async () => {
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof batch;
      return pending.length ? AGAIN : undefined;
    });
  });
  return copies;
}
