import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, test } from 'vitest';
import { eventBridgeBus } from '#events/bus';
import { eventsOf, type OutboundEventOf } from '#events/outbound';
import { storedProjectItem } from '#domain/projects';
import type { Change } from '#store/streamRecords';
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
  test('a project update within the same millisecond as the one before still yields its event', async () => {
    const events = await eventsOf([modify(project, { ...project, name: 'Renamed' })]);
    expect(events.map((e) => e.detailType)).toEqual(['Project Updated']);
    expect(events[0]!.detail).toMatchObject({ data: { name: 'Renamed' }, previous: { name: project.name } });
  });

  test('a counter the stream or the inbound consumer moved is not a change anyone made: no event', async () => {
    expect(await eventsOf([modify(project, { ...project, labels_count: 3, tasks_count: 2 })])).toEqual([]);
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
