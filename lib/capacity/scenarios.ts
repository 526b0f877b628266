import type { APIGatewayProxyResult, DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { INBOUND_TYPES } from '#domain/eventNames';
import { consumeInbound } from '#events/inbound';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { reachesProcessor, STREAM_BATCH_SIZE } from '#events/streamFilter';
import { chunk } from '#store/batches';
import { authorizerHandler, routes, type Route } from '#http/routes';
import { routeNamed } from '#local/samples';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { useLocalRetryLane } from '#webhooks/queue';
import { busEnvelope } from '#local/eventFile';
import { callerFor, seedFixtures } from '#local/fixtures';
import { lambdaContext, loadHandler, methodArn, type AuthorizerHandler } from '#local/lambdaEvents';
import { sqsRecord } from '#local/sampleBatches';
import { FIXTURES } from '#local/sampleFixtures';
import { drainTableStream } from '#local/streamReads';
import { historyReadShapes } from './historyReads.ts';
import { recorded, type Call } from './recorder.ts';
import { historySpread } from './spread.ts';
import { requestsAtLimits, seedAtLimits, WORST } from './worst.ts';

/**
 * The work `npm run capacity` measures, all of it the service's own code run in this process against
 * DynamoDB Local: every route's sample request (the route table's, as the sample events send it) in a
 * workspace of ordinary size, then the stream processor on the records that request wrote (drained to
 * the end, in batches of the deployed mapping's size); the authorizer on a token not
 * in its cache; each inbound event type through the inbound consumer; one event through the webhook
 * deliverer. Requests run one at a time, so every call is attributed to the work that made it.
 */
export interface Measured {
  /** `GET /projects`, or the consumer and what it handled. */
  row: string;
  /** What the request or message was (from the sample itself). */
  scenario: string;
  consumer: boolean;
  request: Call[];
  /** What the stream processor did with the records the work wrote. */
  stream: Call[];
  /** Stream records that reached the stream processor, and the outbound events it published for them. */
  records: number;
  events: number;
  /** A request at the limits the API accepts (worst.ts), not the route's sample; and its answer's bytes. */
  atLimits?: boolean;
  answerBytes?: number;
}

/** The workspace the model runs in: ordinary, not empty (list pages full, labels on tasks). */
export const WORKLOAD = {
  workspace: 'capacity-model',
  projects: 60,
  labels: 20,
  /** Tasks of the sample project carrying two labels each (the sample label and one of the others). */
  labelledTasks: 30,
} as const;

export async function measureEverything(opts: { root: string; endpoint: string; tableName: string; webhookUrl: string }) {
  const ws = WORKLOAD.workspace;
  const call = callerFor(opts.root, ws);
  const checkpoints: Record<string, string> = {};
  let published: OutboundEvent[] = [];
  let records = 0;
  const bus = { publish: async (events: OutboundEvent[]) => void published.push(...events) };
  /**
   * Everything the stream holds, handled, until the processor's own writes leave nothing new. What one
   * request wrote is gathered from every shard first and handed over in batches of the mapping's size:
   * records of one request read apart (DynamoDB Local rolled a shard between them, or one read came
   * before the other record was visible) would otherwise be two batches, and work done once per batch
   * counted twice, some runs and not others.
   */
  const drain = async () => {
    for (;;) {
      const gathered: DynamoDBRecord[] = [];
      const handle = async (batch: DynamoDBRecord[]) => void gathered.push(...batch);
      if ((await drainTableStream({ endpoint: opts.endpoint, tableName: opts.tableName, handle, checkpoints })) === 0) return;
      const kept = gathered.filter(reachesProcessor);
      records += kept.length;
      for (const batch of chunk(kept, STREAM_BATCH_SIZE)) await processStreamBatch(batch, bus);
    }
  };
  const sent = sending(call);

  // A recovery queues attempts on the webhook retry lane: SQS, not the table, so the model keeps none of them.
  useLocalRetryLane({ later: async () => undefined, deadLetter: async () => undefined });
  // Measured as a workspace is once its history is spread (15 minutes after its first entry), as are those at the limits.
  await Promise.all([historySpread(ws), historySpread(WORST.workspace)]);
  const { token } = await seedFixtures(opts.root, ws, opts.webhookUrl);
  await seedWorkspace(sent);
  await drain();

  const rows: Measured[] = [];
  const measure = async (
    row: Omit<Measured, 'request' | 'stream' | 'records' | 'events' | 'atLimits' | 'answerBytes'>,
    work: () => Promise<unknown>,
    atLimits = false,
  ) => {
    published = [];
    records = 0;
    let answerBytes = 0;
    const request = await recorded(async () => {
      const answer = await work();
      answerBytes = Buffer.byteLength(JSON.stringify(answer ?? null));
    });
    const stream = await recorded(drain);
    rows.push({ ...row, request, stream, records, events: published.length, ...(atLimits ? { atLimits, answerBytes } : {}) });
  };

  const targets = { ws, project: FIXTURES.project.slug, label: FIXTURES.label.slug, task: FIXTURES.task, newLabel: FIXTURES.newLabel };
  for (const route of routes) {
    const sample = route.sample({ ...targets, doomedProject: FIXTURES.doomedProject.slug, doomedLabel: FIXTURES.doomedLabel.slug });
    await measure({ row: `${route.method} ${route.path}`, scenario: scenarioOf(route, sample), consumer: false }, () =>
      sent(route.name, sample.path, sample.query ?? {}, sample.body),
    );
  }

  for (const shape of await historyReadShapes(sent, ws, FIXTURES.task))
    await measure({ row: shape.row, scenario: shape.scenario, consumer: false }, () => sent('list-activities', '/activities', shape.query));

  const authorizer = await loadHandler<AuthorizerHandler>(opts.root, authorizerHandler);
  await measure({ row: 'authorizer', scenario: 'a token not in API Gateway’s authorizer cache', consumer: true }, () =>
    authorizer(
      { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: methodArn('GET', '/projects') },
      lambdaContext('authorizer'),
    ),
  );

  for (const [i, type] of INBOUND_TYPES.entries()) {
    const subject = inboundSubject(type);
    const record = queued(i, {
      'detail-type': type,
      source: 'tasks-service',
      detail: {
        event_id: `capacity-${i}`,
        company_slug: ws,
        project_slug: FIXTURES.project.slug,
        occurred_at: new Date().toISOString(),
        ...subject,
      },
    });
    const deadLetters = { put: async (_body: string, reason: string) => fail(`${type} was dead-lettered: ${reason}`) };
    await measure({ row: `inbound: ${type}`, scenario: describe(subject), consumer: true }, async () => {
      const outcome = await consumeInbound([record], deadLetters);
      if (outcome.batchItemFailures.length) fail(`${type} failed in the inbound consumer`);
    });
  }

  // The bus rule's message for one event, to the workspace's one webhook (the sample webhook, on loopback).
  const event = await eventOfNewLabel(sent, drain, () => published);
  const queue = {
    later: async () => undefined,
    deadLetter: async (_body: string, reason: string) => fail(`webhook message dead-lettered: ${reason}`),
  };
  await measure(
    { row: 'webhook deliverer', scenario: `one ${event.detailType} event, one subscribed webhook`, consumer: true },
    async () => {
      const answer = await consumeWebhookMessages([queued(0, busEnvelope(event))], queue);
      if (answer.tally.delivered !== 1) fail(`the webhook delivery did not succeed: ${JSON.stringify(answer.tally)}`);
    },
  );

  // The routes at the limits, in a workspace of their own.
  const sentAtLimits = sending(callerFor(opts.root, WORST.workspace));
  const atLimits = await seedAtLimits(sentAtLimits, opts.webhookUrl);
  await drain();
  for (const r of requestsAtLimits(atLimits)) {
    const route = routeNamed(r.name);
    await measure(
      { row: `${route.method} ${route.path}`, scenario: r.scenario, consumer: false },
      () => sentAtLimits(r.name, r.path, r.query, r.body),
      true,
    );
  }
  return rows;
}

type Sent = (name: string, path: string, query: Record<string, string>, body?: unknown) => Promise<{ data: unknown }>;

/** A caller whose answers must succeed: the data of a 2xx, else an error naming the request. */
export const sending =
  (call: ReturnType<typeof callerFor>): Sent =>
  async (name, path, query, body) => {
    const result: APIGatewayProxyResult = await call(name, path, query, body);
    if (result.statusCode >= 300) throw new Error(`${name} ${path} answered ${result.statusCode}: ${result.body.slice(0, 500)}`);
    return JSON.parse(result.body || 'null') as { data: unknown };
  };

/** The workspace around the samples' fixtures: projects, labels, and labelled tasks of the sample project. */
async function seedWorkspace(sent: Sent): Promise<void> {
  const q = { company_slug: WORKLOAD.workspace };
  for (let i = 4; i <= WORKLOAD.projects; i++)
    await sent('create-project', '/projects', {}, { ...q, name: `Workstream ${String(i).padStart(2, '0')}` });
  for (let i = 4; i <= WORKLOAD.labels; i++) await sent('create-label', '/projects-labels', q, { title: `Topic ${i}`, color: '0E8A16' });
  const inProject = { ...q, project_slug: FIXTURES.project.slug };
  for (let t = 2; t <= WORKLOAD.labelledTasks + 1; t++) {
    for (const label of [FIXTURES.label.slug, `topic-${4 + (t % (WORKLOAD.labels - 3))}`])
      await sent('attach-label', `/projects-labels/${label}/attach`, inProject, { task_uuid: `task-${t}` });
  }
  // The sample task carries one label already: its attach is a task's second label, as most are.
  await sent('attach-label', '/projects-labels/topic-4/attach', inProject, { task_uuid: FIXTURES.task });
}

/** A `Label Created` event as the stream processor publishes it (the label made for it, unrecorded). */
async function eventOfNewLabel(sent: Sent, drain: () => Promise<void>, published: () => OutboundEvent[]) {
  await sent('create-label', '/projects-labels', { company_slug: WORKLOAD.workspace }, { title: 'Webhook Probe', color: '5319E7' });
  await drain();
  const event = published().find((e) => e.detailType === 'Label Created');
  return event ?? fail('no Label Created event was published');
}

function inboundSubject(type: string): Record<string, string> {
  if (type.startsWith('Task')) return { task_uuid: type === 'Task Deleted' ? 'task-2' : 'task-90' };
  if (type.startsWith('Member')) return { username: 'alice' };
  return { sprint_uuid: 'sprint-1' };
}

/** The sample's query (the workspace left out) and body, as the doc's scenario column shows them. */
function scenarioOf(route: Route, sample: { query?: Record<string, string>; body?: unknown }): string {
  const { company_slug: _ws, ...query } = sample.query ?? {};
  const { company_slug: _in, ...body } = (sample.body ?? {}) as Record<string, unknown>;
  const parts = [new URLSearchParams(query).toString(), Object.keys(body).length ? JSON.stringify(body) : ''];
  return parts.filter(Boolean).join(' ') || (route.method === 'GET' ? 'as the sample sends it' : 'no body');
}

const describe = (subject: Record<string, string>) =>
  Object.entries(subject)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

/** An SQS message of the rule's queue: the EventBridge envelope around `event`, sent now. */
function queued(i: number, event: object): SQSRecord {
  const envelope = {
    version: '0',
    id: `capacity-${i}`,
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    ...event,
  };
  return sqsRecord({ messageId: `capacity-${i}`, receiptHandle: `capacity-${i}`, body: envelope, sentAt: Date.now(), queue: 'capacity' });
}

function fail(message: string): never {
  throw new Error(message);
}
