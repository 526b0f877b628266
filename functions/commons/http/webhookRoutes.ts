import { one, page } from '#wire/answers';
import * as z from 'zod';
import {
  Webhook,
  WebhookCreated,
  WebhookDeleted,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEventType,
  WebhookPing,
  WebhookRecovery,
  WebhookSecret,
} from '#webhooks/answers';
import type { Route, SampleTargets } from './route';

/** The sample fixtures' webhook and one of its deliveries (lib/local/sampleFixtures.ts seeds both). */
export const SAMPLE_WEBHOOK = 'wh_5a3c1e0b9d7f2a4c6e8b0d1f';
export const SAMPLE_DELIVERY = 'msg_019bc0e1ee8000000000000000000000';
/** The webhook delete-webhook removes, so the sample webhook survives for the other events. */
export const SAMPLE_DOOMED_WEBHOOK = 'wh_0d00med0b9d7f2a4c6e8b0d1f';

const ws = (t: SampleTargets) => ({ company_slug: t.ws });
const hook = (t: SampleTargets) => `/webhooks/${t.webhook ?? SAMPLE_WEBHOOK}`;

/** The webhook routes: rows of the route table (routes.ts), with the same meaning as every other row. */
export const webhookRoutes: readonly Route[] = [
  {
    name: 'list-webhooks',
    method: 'GET',
    path: '/webhooks',
    handler: 'functions/webhooks/list.ts',
    scope: 'webhooks:read',
    access: 'read',
    answer: { status: 200, schema: page(Webhook), description: 'A page of webhooks' },
    sample: (t) => ({ path: '/webhooks', query: ws(t) }),
  },
  {
    name: 'create-webhook',
    method: 'POST',
    path: '/webhooks',
    handler: 'functions/webhooks/create.ts',
    scope: 'webhooks:write',
    access: 'write',
    secrets: 'seal',
    answer: { status: 201, schema: one(WebhookCreated), description: 'The webhook, created, with its secret (shown this once)' },
    sample: (t) => ({
      path: '/webhooks',
      body: { company_slug: t.ws, url: 'https://hooks.example.com/project-label-service', events: ['Project Created', 'Label Attached'] },
    }),
  },
  {
    name: 'get-webhook',
    method: 'GET',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    scope: 'webhooks:read',
    access: 'read',
    answer: { status: 200, schema: one(Webhook), description: 'The webhook' },
    tagged: true,
    sample: (t) => ({ path: hook(t), query: ws(t) }),
  },
  {
    name: 'update-webhook',
    method: 'PUT',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/update.ts',
    scope: 'webhooks:write',
    access: 'write',
    answer: { status: 200, schema: one(Webhook), description: 'The webhook after the update' },
    tagged: true,
    sample: (t) => ({ path: hook(t), query: ws(t), body: { events: ['*'], description: 'Every change' } }),
  },
  {
    name: 'delete-webhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    scope: 'webhooks:write',
    access: 'write',
    answer: { status: 200, schema: one(WebhookDeleted), description: 'The webhook is gone; nothing more is delivered to it' },
    sample: (t) => ({ path: `/webhooks/${t.webhook ?? SAMPLE_DOOMED_WEBHOOK}`, query: ws(t) }),
  },
  {
    name: 'rotate-webhook-secret',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    handler: 'functions/webhooks/rotate.ts',
    scope: 'webhooks:write',
    access: 'write',
    secrets: 'seal',
    answer: { status: 200, schema: one(WebhookSecret), description: 'The new secret (the old one signs beside it for 24 hours)' },
    sample: (t) => ({ path: `${hook(t)}/rotate-secret`, query: ws(t) }),
  },
  {
    name: 'ping-webhook',
    method: 'POST',
    path: '/webhooks/{id}/ping',
    handler: 'functions/webhooks/ping.ts',
    scope: 'webhooks:write',
    access: 'write',
    secrets: 'open',
    answer: { status: 200, schema: one(WebhookPing), description: 'Whether the endpoint answered the ping with 2xx, and its delivery' },
    sample: (t) => ({ path: `${hook(t)}/ping`, query: ws(t) }),
  },
  {
    name: 'list-webhook-deliveries',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    handler: 'functions/webhooks/deliveries.ts',
    scope: 'webhooks:read',
    access: 'read',
    answer: { status: 200, schema: page(WebhookDelivery), description: "A page of the webhook's deliveries, newest first" },
    sample: (t) => ({ path: `${hook(t)}/deliveries`, query: ws(t) }),
  },
  {
    name: 'get-webhook-delivery',
    method: 'GET',
    path: '/webhooks/{id}/deliveries/{delivery_id}',
    handler: 'functions/webhooks/delivery.ts',
    scope: 'webhooks:read',
    access: 'read',
    answer: { status: 200, schema: one(WebhookDeliveryDetail), description: 'The delivery, with the log of its attempts' },
    tagged: true,
    sample: (t) => ({ path: `${hook(t)}/deliveries/${t.delivery ?? SAMPLE_DELIVERY}`, query: ws(t) }),
  },
  {
    name: 'redeliver-webhook-delivery',
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    handler: 'functions/webhooks/redeliver.ts',
    scope: 'webhooks:write',
    access: 'write',
    secrets: 'open',
    answer: { status: 200, schema: one(WebhookDelivery), description: 'The delivery after its new attempt' },
    sample: (t) => ({ path: `${hook(t)}/deliveries/${t.delivery ?? SAMPLE_DELIVERY}/redeliver`, query: ws(t) }),
  },
  {
    name: 'recover-webhook',
    method: 'POST',
    path: '/webhooks/{id}/recover',
    handler: 'functions/webhooks/recover.ts',
    scope: 'webhooks:write',
    access: 'write',
    answer: { status: 200, schema: one(WebhookRecovery), description: 'How many deliveries were queued to be sent again' },
    sample: (t) => ({ path: `${hook(t)}/recover`, query: ws(t), body: { since: '2026-01-01T00:00:00Z' } }),
  },
  {
    name: 'list-webhook-event-types',
    method: 'GET',
    path: '/webhook-event-types',
    handler: 'functions/webhooks/eventTypes.ts',
    scope: 'webhooks:read',
    access: 'none',
    answer: { status: 200, schema: one(z.array(WebhookEventType)), description: 'Every event type a webhook may subscribe to' },
    sample: (t) => ({ path: '/webhook-event-types', query: ws(t) }),
  },
];
