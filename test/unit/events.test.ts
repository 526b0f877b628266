import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { eventBridgeBus } from '#events/bus';
import { eventsOf, type OutboundEventOf } from '#events/outbound';
import { reachesProcessor } from '#events/streamFilter';
import { storedProjectItem } from '#domain/projects';
import type { Change } from '#store/streamRecords';
import { tableName } from '#store/table';
import { sampleProject } from '#support/items';

const project = storedProjectItem({ ...sampleProject(), updated_by: { name: 'A', username: 'a' } });
const modify = (before: Record<string, unknown>, after: Record<string, unknown>): Change => ({
  id: 'evt-1',
  kind: 'MODIFY',
  type: 'project',
  before,
  after,
  at: '2026-01-01T00:00:00.000Z',
});

describe('which changes are public', () => {
  // The project's kept stats (store/projectStats.ts), as the table would answer them: an update's event adds them.
  const documents = mockClient(DynamoDBDocumentClient);
  const kept = { workspace: project.workspace, project_slug: project.slug, project_id: project.id, tasks_count: 4 };
  beforeEach(() => documents.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [kept] } }));
  afterEach(() => documents.reset());
  afterAll(() => documents.restore());

  test('a project update within the same millisecond as the one before still yields its event, its stats whole', async () => {
    const events = await eventsOf([modify(project, { ...project, name: 'Renamed' })]);
    expect(events.map((e) => e.detailType)).toEqual(['Project Updated']);
    expect(events[0]!.detail).toMatchObject({ data: { name: 'Renamed' }, previous: { name: project.name } });
    const tasks = (project.tasks_count as number) + 4;
    expect(events[0]!.detail).toMatchObject({ data: { stats: { tasks_count: tasks } }, previous: { stats: { tasks_count: tasks } } });
  });

  test('a counter the stream or the inbound consumer moved is not a change anyone made: no event, and no read', async () => {
    expect(await eventsOf([modify(project, { ...project, labels_count: 3, tasks_count: 2 })])).toEqual([]);
    expect(documents.calls()).toHaveLength(0);
  });
});

describe("a webhook's health (operational events)", () => {
  const hook = {
    PK: 'WS#acme',
    SK: 'WEBHOOK#wh_1',
    type: 'webhook',
    id: 'wh_1',
    workspace: 'acme',
    url: 'https://hooks.example.com/in',
    events: ['*'],
    description: '',
    active: true,
    secret: 'sealed:v1:abc',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    rev: 1,
  };
  const failing = { ...hook, failing_since: '2026-01-02T00:00:00.000Z' };
  const change = (before: Record<string, unknown>, after: Record<string, unknown>): Change => ({
    ...modify(before, after),
    type: 'webhook',
  });
  const typesOf = async (before: Record<string, unknown>, after: Record<string, unknown>) =>
    (await eventsOf([change(before, after)])).map((e) => e.detailType);

  test('a run of failures beginning, the service turning it off, a success ending the run: one event each', async () => {
    const [began] = await eventsOf([change(hook, failing)]);
    expect(began).toMatchObject({ detailType: 'Webhook Failing', time: failing.failing_since, detail: { actor: null } });
    expect(began!.detail).toMatchObject({ data: { id: 'wh_1', failing_since: failing.failing_since, active: true } });
    expect(JSON.stringify(began)).not.toContain('sealed');
    expect(began!.detail).toMatchObject({ data: { host: 'hooks.example.com' } });
    expect(JSON.stringify(began)).not.toContain('/in');
    const off = { ...failing, active: false, deactivated_reason: 'Every delivery failed', updated_at: '2026-01-07T00:00:00.000Z' };
    const [disabled] = await eventsOf([change(failing, off)]);
    expect(disabled).toMatchObject({ detailType: 'Webhook Disabled', time: off.updated_at, detail: { actor: { username: 'system' } } });
    const [recovered] = await eventsOf([change(failing, { ...hook, recovered_at: '2026-01-03T00:00:00.000Z' })]);
    expect(recovered).toMatchObject({
      detailType: 'Webhook Recovered',
      time: '2026-01-03T00:00:00.000Z',
      detail: { failing_since: failing.failing_since, data: { failing_since: null } },
    });
    // A write that did not record the success's time (or recorded one older than the run): the write's own.
    const stale = { ...failing, recovered_at: '2026-01-01T12:00:00.000Z' };
    const [unrecorded] = await eventsOf([change(stale, { ...hook, recovered_at: stale.recovered_at })]);
    expect(unrecorded).toMatchObject({ detailType: 'Webhook Recovered', time: '2026-01-01T00:00:00.000Z' });
    const [older] = await eventsOf([change(failing, { ...hook, recovered_at: '2026-01-01T23:59:59.000Z' })]);
    expect(older!.time).toBe('2026-01-01T00:00:00.000Z');
    // A new run over a stale one (failures days apart) is a new Failing.
    expect(await typesOf(failing, { ...failing, failing_since: '2026-01-05T00:00:00.000Z' })).toEqual(['Webhook Failing']);
  });

  test("a user's own changes publish nothing: an update while failing, turning it off, turning it on again, creating, deleting", async () => {
    expect(await typesOf(failing, { ...failing, description: 'changed', rev: 2 })).toEqual([]);
    expect(await typesOf(failing, { ...failing, active: false })).toEqual([]);
    const off = { ...failing, active: false, deactivated_reason: 'Every delivery failed' };
    expect(await typesOf(off, { ...hook, rev: 2 })).toEqual([]);
    // A failure on request (a ping) while it is off: no run is told for a webhook nothing is delivered to.
    expect(await typesOf({ ...hook, active: false }, { ...failing, active: false })).toEqual([]);
    expect(await eventsOf([{ ...change(hook, hook), kind: 'INSERT', before: undefined }])).toEqual([]);
    expect(await eventsOf([{ ...change(failing, failing), kind: 'REMOVE', after: undefined }])).toEqual([]);
  });

  test("the stream filter lets a webhook's item through only while it shows failures, or as it stops showing them", () => {
    const image = (item: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'string' ? { S: v } : { BOOL: v }]));
    const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', before?: Record<string, unknown>, after?: Record<string, unknown>) =>
      reachesProcessor({
        eventName,
        dynamodb: { ...(before ? { OldImage: image(before) } : {}), ...(after ? { NewImage: image(after) } : {}) },
      } as never);
    const { events: _list, rev: _rev, ...plain } = hook;
    const plainFailing = { ...plain, failing_since: failing.failing_since };
    expect(record('INSERT', undefined, plain)).toBe(false);
    expect(record('MODIFY', plain, { ...plain, description: 'x' })).toBe(false);
    expect(record('REMOVE', plain)).toBe(false);
    expect(record('MODIFY', plain, plainFailing)).toBe(true);
    expect(record('MODIFY', plainFailing, plain)).toBe(true);
    expect(record('REMOVE', plainFailing)).toBe(true);
  });
});

describe('the EventBridge bus', () => {
  const eb = mockClient(EventBridgeClient);
  afterEach(() => eb.reset());
  const labelNamed = (i: number, title: string): OutboundEventOf<'Label Created'> => ({
    detailType: 'Label Created',
    time: '2026-01-01T00:00:00.000Z',
    detail: {
      event_id: `e${i}`,
      company_slug: 'w',
      occurred_at: '2026-01-01T00:00:00.000Z',
      actor: null,
      data: { id: i + 1, slug: `l${i}`, title, color: 'FF5733' },
    },
  });
  const big = (i: number) => labelNamed(i, 'é'.repeat(30_000));

  test('calls stay under PutEvents limits: at most 10 entries and 256 KB each', async () => {
    eb.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    await eventBridgeBus({ busName: 'bus', client: eb as unknown as EventBridgeClient }).publish(
      Array.from({ length: 12 }, (_, i) => big(i)),
    );
    const sent = eb.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries!);
    expect(sent.flat()).toHaveLength(12);
    for (const entries of sent) {
      expect(entries.length).toBeLessThanOrEqual(10);
      expect(entries.reduce((n, e) => n + Buffer.byteLength(e.Detail!), 0)).toBeLessThan(256 * 1024);
      expect(entries.every((e) => e.EventBusName === 'bus' && e.Source === 'project-label-service')).toBe(true);
    }
  });

  test("every entry names the stage's table as its resource, so that stages sharing a bus can tell their events apart", async () => {
    eb.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/project-label-service-prod';
    await eventBridgeBus({ busName: 'bus', resources: [table], client: eb as unknown as EventBridgeClient }).publish([labelNamed(1, 'a')]);
    expect(eb.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Resources).toEqual([table]);
  });

  test('entries EventBridge fails are sent again, and only they', async () => {
    eb.on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 1, Entries: [{ EventId: '1' }, { ErrorCode: 'ThrottlingException' }] })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: '2' }] });
    const small = (i: number) => labelNamed(i, '');
    await eventBridgeBus({ busName: 'bus', client: eb as unknown as EventBridgeClient }).publish([small(1), small(2)]);
    const sent = eb.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries!.map((e) => JSON.parse(e.Detail!).event_id));
    expect(sent).toEqual([['e1', 'e2'], ['e2']]);
  });
});
