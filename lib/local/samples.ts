import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, DynamoDBRecord, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { storedProjectItem } from '#domain/projects';
import { ItemType, keys } from '#store/keys';
import { detachNoteItem, taskLinkItem } from '#store/links';
import { matchPath, type SampleRequest as RouteSample, type SampleTargets as RouteTargets } from '#http/route';
import { routes, type Route } from '#http/routes';
import { toAuthorizerContext } from '#http/principal';
import { SCOPES } from '#domain/scopes';
import { methodArn, proxyEvent } from './gateway.ts';

/**
 * The sample events (events/<function>.json): one request per function, as API Gateway would send it
 * through the local gateway, against a small fixture set that `seedFixtures()` creates.
 * `npm run events` writes them; the events tests check the files still equal what this produces.
 */
export const SAMPLE_WORKSPACE = 'acme-corp';
/** Replaced by a real token when the authorizer event is invoked (`--seed`, `--token` or TOKEN). */
export const TOKEN_PLACEHOLDER = '{{TOKEN}}';
export const AUTHORIZER_EVENT = 'authorizer';
/** The stream processor's sample: a batch of the table's stream records (events/stream-processor.json). */
export const STREAM_EVENT = 'stream-processor';
/** The inbound consumer's sample: an SQS batch of EventBridge events (events/inbound-consumer.json). */
export const INBOUND_EVENT = 'inbound-consumer';

/** What the events act on; `seedFixtures()` makes each exist (or, for `absentLabel`, not exist). */
export const FIXTURES = {
  project: { name: 'Website Redesign', slug: 'website-redesign' },
  /** The project delete-project removes, so website-redesign survives for the other events. */
  doomedProject: { name: 'Legacy Site', slug: 'legacy-site' },
  label: { title: 'Bug', slug: 'bug', color: 'D73A4A' },
  /** The label delete-label removes. */
  doomedLabel: { title: 'Obsolete', slug: 'obsolete', color: 'CCCCCC' },
  /** The label create-label creates: removed by seeding so the event can run again. */
  newLabel: { title: 'Feature', slug: 'feature', color: '1E90FF' },
  task: 'task-1',
} as const;

/** The principal the sample events carry in requestContext.authorizer (what the authorizer returns). */
export const SAMPLE_PRINCIPAL = {
  tokenId: 'samplesampletokn',
  owner: { name: 'Local Developer', username: 'local-dev' },
  workspaces: [SAMPLE_WORKSPACE],
  scopes: [...SCOPES],
};

/** A sample request and the status its route answers when the fixtures exist. */
export type SampleRequest = RouteSample & { expectedStatus: number };
export type SampleTargets = Omit<RouteTargets, 'newLabel'>;

/**
 * A valid request for every route against the given targets (each route's row says its own). The
 * sample events use it with the fixtures above; the tests generated from the route table (isolation
 * matrix, fault injection) use it with fixtures of their own.
 */
export function sampleRequestsFor(t: SampleTargets): Record<string, SampleRequest> {
  return Object.fromEntries(
    routes.map((r) => [r.name, { ...r.sample({ ...t, newLabel: FIXTURES.newLabel }), expectedStatus: r.answer.status }]),
  );
}

export const SAMPLE_REQUESTS: Record<string, SampleRequest> = sampleRequestsFor({
  ws: SAMPLE_WORKSPACE,
  project: FIXTURES.project.slug,
  label: FIXTURES.label.slug,
  task: FIXTURES.task,
  doomedProject: FIXTURES.doomedProject.slug,
  doomedLabel: FIXTURES.doomedLabel.slug,
});

/** Fixed ids and times so regenerating the events changes nothing unless the events really change. */
const FIXED_EPOCH = Date.UTC(2026, 0, 15, 9, 30, 0);

function requestId(index: number): string {
  return `c0ffee00-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;
}

export function routeNamed(name: string): Route {
  const route = routes.find((r) => r.name === name);
  if (!route) throw new Error(`No route named "${name}". Known: ${[...routes.map((r) => r.name), AUTHORIZER_EVENT].join(', ')}`);
  return route;
}

/** The REST proxy event for one route's sample request, as the (local) API Gateway builds it. */
function sampleProxyEvent(name: string): APIGatewayProxyEvent {
  const route = routeNamed(name);
  const sample = SAMPLE_REQUESTS[name];
  if (!sample) throw new Error(`No sample request for route "${name}" in lib/local/samples.ts`);
  const pathParameters = matchPath(route.path, sample.path);
  if (!pathParameters) throw new Error(`Sample path ${sample.path} does not match ${route.path}`);
  const body = sample.body === undefined ? null : JSON.stringify(sample.body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: `Bearer ${TOKEN_PLACEHOLDER}`,
    Host: 'api.example.com',
    'User-Agent': 'curl/8.5.0',
    'X-Forwarded-For': '203.0.113.10',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...(body === null ? {} : { 'Content-Type': 'application/json' }),
  };
  const index = routes.indexOf(route);
  const event = proxyEvent({
    route,
    method: route.method,
    path: sample.path,
    pathParameters,
    query: new URLSearchParams(sample.query ?? {}),
    headers,
    body,
    authorizer: { principalId: SAMPLE_PRINCIPAL.tokenId, integrationLatency: 0, ...toAuthorizerContext(SAMPLE_PRINCIPAL) },
    requestId: requestId(index),
  });
  event.requestContext.requestTimeEpoch = FIXED_EPOCH;
  event.requestContext.identity.sourceIp = '203.0.113.10';
  event.requestContext.identity.userAgent = 'curl/8.5.0';
  return event;
}

/** The TOKEN authorizer event API Gateway sends before a request (here: get-project's). */
function sampleAuthorizerEvent(): APIGatewayTokenAuthorizerEvent {
  const sample = SAMPLE_REQUESTS['get-project']!;
  return { type: 'TOKEN', authorizationToken: `Bearer ${TOKEN_PLACEHOLDER}`, methodArn: methodArn('GET', sample.path) };
}

/**
 * A batch of the table's stream as Lambda delivers it to the stream processor: a project created, a
 * label attached to a task and another detached, a label renamed, a label deleted (its deletion job),
 * and records the processor ignores (a task version, a counter). Items are built by the service's own
 * item builders. The project id is fixed, so invoking it against seeded data publishes the events and
 * leaves the real project's counters alone (its records name another project id).
 */
function sampleStreamEvent(): DynamoDBStreamEvent {
  const ws = SAMPLE_WORKSPACE;
  const at = new Date(FIXED_EPOCH).toISOString();
  const actor = SAMPLE_PRINCIPAL.owner;
  const project = {
    id: '5a3c1e8e-0000-4000-8000-000000000001',
    workspace: ws,
    slug: 'sample-stream-project',
    name: 'Sample Stream Project',
    description: '',
    visibility: 'public' as const,
    recurring: false,
    owner: actor,
    status: 'in_progress' as const,
    settings: { default_workflow: 'kanban' as const, task_prefix: 'SSP' },
    tasks_count: 0,
    completed_count: 0,
    members_count: 1,
    sprints_count: 0,
    labels_count: 0,
    created_at: at,
    updated_at: at,
    updated_by: actor,
  };
  const ref = { id: project.id, slug: project.slug };
  const bug = { id: 1, slug: FIXTURES.label.slug };
  const label = {
    id: 1,
    slug: FIXTURES.label.slug,
    title: FIXTURES.label.title,
    color: FIXTURES.label.color,
    created_at: at,
    updated_at: at,
  };
  const labelItem = (title: string, updatedAt: string) => ({
    ...keys.label(ws, label.slug),
    type: ItemType.label,
    workspace: ws,
    ...label,
    title,
    updated_at: updatedAt,
    updated_by: actor,
  });
  const note = {
    ...detachNoteItem(ws, ref, bug, 'task-2', actor),
    SK: 'DETACHED#00000000-0000-4000-8000-000000000002',
    at,
    ttl: Math.floor(FIXED_EPOCH / 1000) + 86_400,
  };
  const doomed = {
    id: 2,
    slug: FIXTURES.doomedLabel.slug,
    title: FIXTURES.doomedLabel.title,
    color: FIXTURES.doomedLabel.color,
    created_at: at,
    updated_at: at,
  };
  const job = {
    ...keys.labelDeletion(ws, doomed.id),
    type: ItemType.labelDeletion,
    workspace: ws,
    label_id: doomed.id,
    label_slug: doomed.slug,
    label: doomed,
    actor,
    deleted_at: at,
    round: 0,
  };
  const version = {
    ...keys.taskVersion(project.id, FIXTURES.task),
    type: ItemType.taskVersion,
    workspace: ws,
    project_id: project.id,
    task_uuid: FIXTURES.task,
    v: 1,
  };
  const changes: [DynamoDBRecord['eventName'], Record<string, unknown> | undefined, Record<string, unknown> | undefined][] = [
    ['INSERT', undefined, storedProjectItem(project)],
    ['INSERT', undefined, version],
    ['INSERT', undefined, taskLinkItem(ws, ref, bug, FIXTURES.task, at, actor)],
    ['INSERT', undefined, note],
    ['MODIFY', labelItem(label.title, at), labelItem('Defect', new Date(FIXED_EPOCH + 60_000).toISOString())],
    ['INSERT', undefined, job],
  ];
  return {
    Records: changes.map(([eventName, before, after], i) => {
      const item = (after ?? before)!;
      return {
        eventID: `0000000000000000000000000000000${i.toString(16)}`,
        eventName,
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'us-east-1',
        dynamodb: {
          ApproximateCreationDateTime: FIXED_EPOCH / 1000,
          Keys: marshall({ PK: item.PK, SK: item.SK }),
          ...(after ? { NewImage: marshall(after) } : {}),
          ...(before ? { OldImage: marshall(before) } : {}),
          SequenceNumber: String(1000 + i).padStart(21, '0'),
          SizeBytes: 256,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
        eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/project-label-service/stream/2026-01-15T09:30:00.000',
      } as DynamoDBRecord;
    }),
  };
}

/**
 * A batch of the inbound queue as Lambda delivers it to the consumer: EventBridge events of the rest
 * of the product about the sample project (a task created and completed, a member, a sprint), and one
 * malformed event (no task_uuid), which the consumer dead-letters with its reason.
 */
function sampleInboundEvent(): SQSEvent {
  const at = (i: number) => new Date(FIXED_EPOCH + i * 1000).toISOString();
  const events: [string, Record<string, string>][] = [
    ['Task Created', { task_uuid: FIXTURES.task }],
    ['Task Completed', { task_uuid: FIXTURES.task }],
    ['Member Added', { username: 'alice' }],
    ['Sprint Created', { sprint_uuid: 'sprint-1' }],
    ['Task Created', {}],
  ];
  return {
    Records: events.map(([type, subject], i) => {
      const id = `5a3c1e8e-0000-4000-9000-${String(i + 1).padStart(12, '0')}`;
      return {
        messageId: `c0ffee00-0000-4000-9000-${String(i + 1).padStart(12, '0')}`,
        receiptHandle: `sample-receipt-${i + 1}`,
        body: JSON.stringify({
          version: '0',
          id,
          'detail-type': type,
          source: 'tasks-service',
          account: '123456789012',
          time: at(i),
          region: 'us-east-1',
          resources: [],
          detail: { event_id: id, company_slug: SAMPLE_WORKSPACE, project_slug: FIXTURES.project.slug, occurred_at: at(i), ...subject },
        }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(FIXED_EPOCH + i * 1000),
          SenderId: 'AIDAEVENTBRIDGE',
          ApproximateFirstReceiveTimestamp: String(FIXED_EPOCH + i * 1000 + 5),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:project-label-service-dev-inbound',
        awsRegion: 'us-east-1',
      };
    }),
  };
}

/** Every sample event by file stem: one per route, the authorizer's, the stream processor's and the inbound consumer's. */
export function sampleEvents(): Record<string, APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent | DynamoDBStreamEvent | SQSEvent> {
  return {
    ...Object.fromEntries(routes.map((r) => [r.name, sampleProxyEvent(r.name)])),
    [AUTHORIZER_EVENT]: sampleAuthorizerEvent(),
    [STREAM_EVENT]: sampleStreamEvent(),
    [INBOUND_EVENT]: sampleInboundEvent(),
  };
}

/** The same event for another workspace (tests use a fresh one per run) and with a real token. */
export function prepareEvent<T>(event: T, opts: { workspace?: string; token?: string }): T {
  let json = JSON.stringify(event);
  if (opts.workspace && opts.workspace !== SAMPLE_WORKSPACE) json = json.replaceAll(SAMPLE_WORKSPACE, opts.workspace);
  if (opts.token) json = json.replaceAll(TOKEN_PLACEHOLDER, opts.token);
  return JSON.parse(json) as T;
}
