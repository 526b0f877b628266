import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { workspaceClient, type WorkspaceClient } from '#support/api';
import { deadLetterReason, emitInbound, inboundDeadLetterFile } from '#support/inbound';

/**
 * When an inbound event happened decides whether it counts: an event older than the project it names
 * (a replay, or one about an earlier project of the same slug, deleted since) does not; occurred_at
 * outside the accepted window (before 2000, or more than 5 minutes ahead) is dead-lettered with the
 * reason; instants are compared, however the offset is written.
 */
const stats = async (c: WorkspaceClient, project: string) =>
  (await c.get(`/projects/${project}/stats`)).body.data as Record<string, number>;

/** Sends the events, then one that counts (a sprint); once that shows, every earlier one was applied. */
async function sendThenSettle(
  c: WorkspaceClient,
  project: string,
  events: [string, Record<string, unknown>][],
): Promise<Record<string, number>> {
  const sprints = (await stats(c, project)).sprints_count!;
  for (const [type, detail] of events) await emitInbound(type, { company_slug: c.ws, project_slug: project, ...detail });
  const marker = `marker-${Math.random().toString(36).slice(2)}`;
  await emitInbound('Sprint Created', {
    company_slug: c.ws,
    project_slug: project,
    sprint_uuid: marker,
    event_id: marker,
    occurred_at: new Date().toISOString(),
  });
  await expect.poll(async () => (await stats(c, project)).sprints_count, { timeout: 10_000, interval: 50 }).toBe(sprints + 1);
  return stats(c, project);
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

describe('events older than their project', () => {
  test('do not count; the same events after its creation do', async () => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const after = await sendThenSettle(c, 'web', [
      ['Task Created', { task_uuid: 'old', event_id: 'e-old', occurred_at: hoursAgo(1) }],
      ['Member Added', { username: 'old-member', event_id: 'e-old-m', occurred_at: hoursAgo(2) }],
      ['Sprint Created', { sprint_uuid: 'old-sprint', event_id: 'e-old-s', occurred_at: hoursAgo(24) }],
      ['Task Created', { task_uuid: 'new', event_id: 'e-new', occurred_at: new Date().toISOString() }],
    ]);
    expect(after).toMatchObject({ tasks_count: 1, members_count: 1, sprints_count: 1 });
  });

  test('a project deleted and created again under the same slug starts from zero, whatever is replayed', async () => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const first: [string, Record<string, unknown>][] = [
      ['Task Created', { task_uuid: 't1', event_id: 'r1', occurred_at: new Date().toISOString() }],
      ['Task Created', { task_uuid: 't2', event_id: 'r2', occurred_at: new Date().toISOString() }],
      ['Member Added', { username: 'alice', event_id: 'r3', occurred_at: new Date().toISOString() }],
    ];
    expect(await sendThenSettle(c, 'web', first)).toMatchObject({ tasks_count: 2, members_count: 2 });
    expect((await c.del('/projects/web')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5)); // the new project is created after the events above, to the millisecond
    expect((await c.createProject('Web')).slug).toBe('web');
    // The old project's events sent again (new ids: a replay from an archive, or a second sender).
    const replayed = first.map(([type, d]) => [type, { ...d, event_id: `again-${d.event_id}` }] as [string, Record<string, unknown>]);
    expect(await sendThenSettle(c, 'web', replayed)).toMatchObject({ tasks_count: 0, members_count: 1, sprints_count: 1 });
  });
});

describe('occurred_at outside the window, or not an instant', () => {
  test.each([
    ['year 10000', '+010000-01-01T00:00:00.000Z', 'ISO'],
    ['a day ahead', new Date(Date.now() + 86_400_000).toISOString(), 'in the future'],
    ['ten minutes ahead', new Date(Date.now() + 600_000).toISOString(), 'in the future'],
    ['1999', '1999-12-31T23:59:59Z', 'before 2000'],
    ['no offset', '2026-11-24T10:00:00', 'ISO'],
    ['a date only', '2026-11-24', 'ISO'],
    ['words', 'Tue Nov 24 2026 10:00:00 GMT+0000', 'ISO'],
  ])('%s: dead-lettered with the reason, counted nowhere', async (_name, occurredAt, reason) => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const id = `bad-${Math.random().toString(36).slice(2)}`;
    const after = await sendThenSettle(c, 'web', [['Task Created', { task_uuid: 't1', event_id: id, occurred_at: occurredAt }]]);
    expect(after.tasks_count).toBe(0);
    const why = await deadLetterReason(id);
    expect(why).toContain('occurred_at');
    expect(why).toContain(reason);
  });

  test('the window includes its start: exactly 2000-01-01T00:00:00Z is taken in, not dead-lettered', async () => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const id = `edge-${Math.random().toString(36).slice(2)}`;
    // Taken in (and ignored: it is before the project), unlike 1999-12-31T23:59:59Z above.
    await sendThenSettle(c, 'web', [['Task Created', { task_uuid: 't1', event_id: id, occurred_at: '2000-01-01T00:00:00Z' }]]);
    const file = inboundDeadLetterFile()!;
    expect(existsSync(file) && readFileSync(file, 'utf8').includes(id)).toBe(false);
  });

  test.each([
    ['year 10000', '+010000-01-01T00:00:00.000Z', 'ISO'],
    ['a day ahead', new Date(Date.now() + 86_400_000).toISOString(), 'in the future'],
  ])("the envelope's time instead (no occurred_at), %s: dead-lettered with the reason", async (_name, time, reason) => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const id = `bad-${Math.random().toString(36).slice(2)}`;
    await emitInbound('Task Created', { company_slug: c.ws, project_slug: 'web', task_uuid: 't1', event_id: id }, { Time: time });
    const after = await sendThenSettle(c, 'web', []);
    expect(after.tasks_count).toBe(0);
    const why = await deadLetterReason(id);
    expect(why).toContain('occurred_at');
    expect(why).toContain(reason);
  });

  test('instants are compared, not their spelling: a later reopen wins over an earlier completion written with another offset', async () => {
    const c = await workspaceClient('time');
    await c.createProject('Web');
    const now = Date.now() + 60_000;
    const inZone = (ms: number, offsetHours: number) => {
      const local = new Date(ms + offsetHours * 3600_000).toISOString().slice(0, 19);
      return `${local}+${String(offsetHours).padStart(2, '0')}:00`;
    };
    const after = await sendThenSettle(c, 'web', [
      ['Task Created', { task_uuid: 't1', event_id: 'c1', occurred_at: new Date(now).toISOString() }],
      // Completed at now+1 min, spelled in +09:00 (its text sorts after the reopen's).
      ['Task Completed', { task_uuid: 't1', event_id: 'c2', occurred_at: inZone(now + 60_000, 9) }],
      // Reopened at now+2 min, spelled in Z.
      ['Task Reopened', { task_uuid: 't1', event_id: 'c3', occurred_at: new Date(now + 120_000).toISOString() }],
    ]);
    expect(after).toMatchObject({ tasks_count: 1, completed_count: 0 });
  });
});
