import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { storedProjectItem } from '#domain/projects';
import { ItemType, keys } from '#store/keys';
import { detachNoteItem, taskLinkItem } from '#store/linkItems';
import { homeShard } from '#store/taskShardLayout';
import { EVENT_SOURCE } from '#domain/eventNames';
import { SAMPLE_DELIVERY, SAMPLE_WEBHOOK } from '#http/webhookRoutes';
import { FIXED_EPOCH, FIXTURES, SAMPLE_PRINCIPAL, SAMPLE_WORKSPACE } from './sampleFixtures.ts';

/** The sample batches of the functions no request invokes: the stream processor's, the inbound consumer's and the webhook deliverer's. */

/**
 * A batch of the table's stream as Lambda delivers it to the stream processor: a project created, a
 * label attached to a task and another detached, a label renamed, a label deleted (its deletion job),
 * and records the processor ignores (a task version, a counter). Items are built by the service's own
 * item builders. The project id is fixed, so invoking it against seeded data publishes the events and
 * leaves the real project's counters alone (its records name another project id).
 */
export function sampleStreamEvent(): DynamoDBStreamEvent {
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
    ...detachNoteItem(ws, ref, bug, 'task-2', actor, undefined, homeShard('task-2')),
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
    ...keys.taskVersion(project.id, FIXTURES.task, homeShard(FIXTURES.task)),
    type: ItemType.taskVersion,
    workspace: ws,
    project_id: project.id,
    task_uuid: FIXTURES.task,
    v: 1,
  };
  const changes: [DynamoDBRecord['eventName'], Record<string, unknown> | undefined, Record<string, unknown> | undefined][] = [
    ['INSERT', undefined, storedProjectItem(project)],
    ['INSERT', undefined, version],
    ['INSERT', undefined, taskLinkItem(ws, ref, bug, FIXTURES.task, at, actor, 0, homeShard(FIXTURES.task))],
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
export function sampleInboundEvent(): SQSEvent {
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
      return sqsRecord({
        messageId: `c0ffee00-0000-4000-9000-${String(i + 1).padStart(12, '0')}`,
        receiptHandle: `sample-receipt-${i + 1}`,
        body: {
          version: '0',
          id,
          'detail-type': type,
          source: 'tasks-service',
          account: '123456789012',
          time: at(i),
          region: 'us-east-1',
          resources: [],
          detail: { event_id: id, company_slug: SAMPLE_WORKSPACE, project_slug: FIXTURES.project.slug, occurred_at: at(i), ...subject },
        },
        sentAt: FIXED_EPOCH + i * 1000,
        queue: 'project-label-service-dev-inbound',
      });
    }),
  };
}

/**
 * The webhook deliverer's sample: an SQS batch as its queue delivers it, one `Label Created` event of
 * the sample workspace from the bus rule (to each of its webhooks) and one retry the deliverer
 * scheduled itself (of the sample webhook's sample delivery).
 */
export function sampleWebhookEvent(): SQSEvent {
  const at = new Date(FIXED_EPOCH).toISOString();
  const id = '5a3c1e8e-0000-4000-a000-000000000001';
  const label = { id: 1, slug: FIXTURES.label.slug, title: FIXTURES.label.title, color: FIXTURES.label.color };
  const bodies = [
    {
      version: '0',
      id,
      'detail-type': 'Label Created',
      source: EVENT_SOURCE,
      account: '123456789012',
      time: at,
      region: 'us-east-1',
      resources: [],
      detail: {
        event_id: id,
        company_slug: SAMPLE_WORKSPACE,
        occurred_at: at,
        actor: { username: SAMPLE_PRINCIPAL.owner.username },
        data: label,
      },
    },
    { kind: 'attempt', workspace: SAMPLE_WORKSPACE, webhook_id: SAMPLE_WEBHOOK, delivery_id: SAMPLE_DELIVERY, due_at: at },
  ];
  return {
    Records: bodies.map((body, i) =>
      sqsRecord({
        messageId: `c0ffee00-0000-4000-a000-${String(i + 1).padStart(12, '0')}`,
        receiptHandle: `sample-receipt-${i + 1}`,
        body,
        sentAt: FIXED_EPOCH,
        queue: 'project-label-service-dev-webhook-deliveries',
      }),
    ),
  };
}

/** An SQS message as Lambda's SQS event source hands it over: sent by EventBridge's rule at `sentAt` (epoch ms), received 5 ms later. */
export function sqsRecord(m: { messageId: string; receiptHandle: string; body: object; sentAt: number; queue: string }): SQSRecord {
  return {
    messageId: m.messageId,
    receiptHandle: m.receiptHandle,
    body: JSON.stringify(m.body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(m.sentAt),
      SenderId: 'AIDAEVENTBRIDGE',
      ApproximateFirstReceiveTimestamp: String(m.sentAt + 5),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:123456789012:${m.queue}`,
    awsRegion: 'us-east-1',
  };
}
