import { describe, expect, test } from 'vitest';
import { workspaceClient, type WorkspaceClient } from '#support/api';
import { deadLetterReason, emitInbound, inboundDeadLetterFile } from '#support/inbound';
import { streamDrained } from '#support/settle';

/**
 * Inbound events end to end, through the local service as `npm run emit` reaches it: the stats of a
 * project follow the task, member and sprint events of the rest of the product, exactly, whatever
 * duplicates and order they come in; a task deleted elsewhere loses its labels.
 */
const emit = emitInbound;

let n = 0;
/** Instants in order, two minutes ahead of the projects the tests create (an event older than its project does not count). */
const base = Date.now() + 120_000;
const at = () => new Date(base + 1000 * n++).toISOString();

async function stats(c: WorkspaceClient, project: string) {
  return (await c.get(`/projects/${project}/stats`)).body.data as Record<string, number>;
}

async function statsBecome(c: WorkspaceClient, project: string, expected: Record<string, number>) {
  await expect.poll(() => stats(c, project), { timeout: 10_000, interval: 50 }).toMatchObject(expected);
}

describe('inbound events', () => {
  test('tasks, members and sprints move the stats only on real transitions, in any order, however often', async () => {
    const c = await workspaceClient('in');
    await c.createProject('Web');
    const ev = (type: string, more: Record<string, unknown>, occurred = at(), id?: string) =>
      emit(type, {
        company_slug: c.ws,
        project_slug: 'web',
        event_id: id ?? `${type}-${JSON.stringify(more)}-${occurred}`,
        occurred_at: occurred,
        ...more,
      });
    const t1created = at();
    await ev('Task Created', { task_uuid: 't1' }, t1created, 'e-t1');
    await ev('Task Created', { task_uuid: 't1' }, t1created, 'e-t1'); // a duplicate
    await ev('Task Created', { task_uuid: 't2' });
    await ev('Task Created', { task_uuid: 't3' });
    await ev('Task Completed', { task_uuid: 't1' });
    await ev('Task Completed', { task_uuid: 't9' }); // before its creation
    await ev('Task Created', { task_uuid: 't9' });
    await ev('Task Deleted', { task_uuid: 't2' });
    await ev('Task Completed', { task_uuid: 't2' }); // late: the task is gone
    await ev('Member Added', { username: 'alice' });
    await ev('Member Added', { username: 'alice' });
    await ev('Member Added', { username: 'tester' }); // the owner counts once, always
    await ev('Member Removed', { username: 'bob' }); // never added
    await ev('Member Added', { username: 'jane.doe@example.com' }); // usernames as the product spells them
    await ev('Sprint Created', { sprint_uuid: 's1' });
    await ev('Sprint Created', { sprint_uuid: 's2' });
    await ev('Sprint Deleted', { sprint_uuid: 's2' });
    await ev('Sprint Deleted', { sprint_uuid: 's3' });
    await ev('Sprint Created', { sprint_uuid: 's3' }); // late: stays deleted
    await statsBecome(c, 'web', { tasks_count: 3, completed_count: 2, open_count: 1, members_count: 3, sprints_count: 1 });
    // A reopen that happened before the completion it races with changes nothing; a later one does.
    await ev('Task Reopened', { task_uuid: 't1' }, new Date().toISOString());
    await ev('Task Reopened', { task_uuid: 't9' });
    await statsBecome(c, 'web', { tasks_count: 3, completed_count: 1, open_count: 2 });
    await ev('Member Removed', { username: 'alice' });
    await ev('Member Removed', { username: 'jane.doe@example.com' });
    await ev('Member Removed', { username: 'tester' });
    await statsBecome(c, 'web', { members_count: 1 });
  });

  test('events for an unknown workspace or project change nothing; malformed ones are dead-lettered with their reason', async () => {
    const c = await workspaceClient('in');
    await c.createProject('Web');
    await emit('Task Created', { company_slug: c.ws, project_slug: 'nope', task_uuid: 't1', event_id: 'u1', occurred_at: at() });
    await emit('Task Created', {
      company_slug: 'no-such-workspace',
      project_slug: 'web',
      task_uuid: 't1',
      event_id: 'u2',
      occurred_at: at(),
    });
    await emit('Task Created', { company_slug: c.ws, project_slug: 'web', event_id: 'malformed-one', occurred_at: at() }); // no task_uuid
    await emit('Task Created', { company_slug: c.ws, project_slug: 'web', task_uuid: 'ok', event_id: 'ok1', occurred_at: at() });
    await statsBecome(c, 'web', { tasks_count: 1 });
    // Against another server (API_URL), its dead-letter file is only known when INBOUND_DLQ_FILE names it.
    if (!process.env.API_URL) expect(inboundDeadLetterFile()).toBeTruthy();
    if (inboundDeadLetterFile()) expect(await deadLetterReason('malformed-one')).toContain('task_uuid');
    // Our own events never come back in, whatever their name.
    await emit(
      'Task Created',
      { company_slug: c.ws, project_slug: 'web', task_uuid: 'mine', event_id: 'own', occurred_at: at() },
      { Source: 'project-label-service' },
    );
    await emit('Task Created', { company_slug: c.ws, project_slug: 'web', task_uuid: 'after', event_id: 'after', occurred_at: at() });
    await statsBecome(c, 'web', { tasks_count: 2 });
  });

  test('a task deleted elsewhere loses its labels: labels_count and the label task list follow', async () => {
    const c = await workspaceClient('in');
    await c.createProject('Web');
    await c.createLabel('Bug');
    const attach = (task: string) => c.post('/projects-labels/bug/attach', { task_uuid: task }, { project_slug: 'web' });
    for (const t of ['t1', 't2']) {
      await emit('Task Created', { company_slug: c.ws, project_slug: 'web', task_uuid: t, event_id: `c-${t}`, occurred_at: at() });
      expect((await attach(t)).status).toBe(200);
    }
    await statsBecome(c, 'web', { tasks_count: 2 });
    await streamDrained();
    expect((await stats(c, 'web')).labels_count).toBe(1);
    await emit('Task Deleted', { company_slug: c.ws, project_slug: 'web', task_uuid: 't1', event_id: 'd-t1', occurred_at: at() });
    await statsBecome(c, 'web', { tasks_count: 1 });
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual(['t2']);
    expect((await c.get('/projects-labels', { project_slug: 'web', task_uuid: 't1' })).body.data).toEqual([]);
    await emit('Task Deleted', { company_slug: c.ws, project_slug: 'web', task_uuid: 't2', event_id: 'd-t2', occurred_at: at() });
    await statsBecome(c, 'web', { tasks_count: 0 });
    await streamDrained();
    expect((await stats(c, 'web')).labels_count).toBe(0);
    expect((await c.get('/projects-labels/bug/tasks', { project_slug: 'web' })).body.data).toEqual([]);
  });
});
