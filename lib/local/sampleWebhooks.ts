import { sealSecret } from '#webhooks/subscriptions';
import { SAMPLE_DELIVERY, SAMPLE_DOOMED_WEBHOOK, SAMPLE_WEBHOOK } from '#http/webhookRoutes';
import { putNewDelivery } from '#webhooks/store/webhookDeliveries';
import { putNewWebhook, readWebhook } from '#webhooks/store/webhooks';
import { countedKinds, countInPart } from '#store/workspaceCounts';
import type { WebhookRecord } from '#webhooks/entities';
import { newSecret } from '#webhooks/signing';
import { FIXED_EPOCH } from './sampleFixtures.ts';

/**
 * The webhooks the sample events name (their ids are fixed, so they are written to the table rather
 * than created through the API, which makes ids of its own): one the events read and change, one
 * delete-webhook removes, and a delivery of the first for redeliver. Their URL is a documentation
 * address by default: a ping or redelivery reports its failure (`npm run capacity` gives one on loopback).
 */
export async function seedSampleWebhooks(workspace: string, url = 'https://hooks.example.com/project-label-service'): Promise<void> {
  const at = new Date(FIXED_EPOCH).toISOString();
  for (const id of [SAMPLE_WEBHOOK, SAMPLE_DOOMED_WEBHOOK]) {
    if (await readWebhook(workspace, id)) continue;
    await writeWebhook({
      id,
      workspace,
      url,
      description: 'Sample webhook',
      created_at: at,
      updated_at: at,
    });
  }
  const data = { webhook_id: SAMPLE_WEBHOOK, company_slug: workspace, event_id: 'sample-ping', occurred_at: at };
  await putNewDelivery({
    id: SAMPLE_DELIVERY,
    webhook_id: SAMPLE_WEBHOOK,
    workspace,
    event_type: 'Webhook Ping',
    event_id: 'sample-ping',
    payload: JSON.stringify({ type: 'Webhook Ping', timestamp: at, data }),
    status: 'failed',
    attempts: 1,
    created_at: at,
  });
}

/**
 * A webhook written straight to the table with an id of the caller's (samples, fixtures, benchmarks),
 * as the service would keep it: every event, active, a fresh secret, unless `fields` says otherwise.
 */
export async function writeWebhook(fields: Pick<WebhookRecord, 'id' | 'workspace' | 'url'> & Partial<WebhookRecord>): Promise<void> {
  const now = new Date().toISOString();
  // Counted in as a create counts it (no limit: a sample's webhooks are the caller's to choose).
  const count = await countInPart(countedKinds.webhooks, fields.workspace, Number.MAX_SAFE_INTEGER);
  if (count === 'full') throw new Error('unreachable: no limit');
  await putNewWebhook(
    {
      events: ['*'],
      description: '',
      active: true,
      secret: await sealSecret(fields, newSecret()),
      created_at: now,
      updated_at: now,
      url_set_at: fields.created_at ?? now,
      rev: 0,
      ...fields,
    },
    count,
  );
}
