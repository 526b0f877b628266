import { localStack } from '#support/stack';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { workspaceClient, type WorkspaceClient } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * Outbound events, end to end: requests through the local API, events read from the local bus (the
 * file the stream processor of `npm start` writes). One event per public change, none for a refused
 * request, nothing internal.
 */
interface BusEvent {
  id: string;
  'detail-type': string;
  source: string;
  time: string;
  detail: Record<string, any> & { event_id: string; company_slug: string; occurred_at: string };
}

const PUBLIC_TYPES = [
  'Project Created',
  'Project Updated',
  'Project Duplicated',
  'Project Deleted',
  'Label Created',
  'Label Updated',
  'Label Deleted',
  'Label Attached',
  'Label Detached',
];

function busEvents(ws: string): BusEvent[] {
  const file = process.env.API_URL ? process.env.EVENTS_FILE! : localStack().eventsFile;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BusEvent)
    .filter((e) => e.detail.company_slug === ws);
}

/**
 * Every event of the workspace up to a marker: a last label created after everything else. The local
 * stream is one ordered shard, so once the marker's event is out, every earlier change's is too.
 */
async function eventsUntilMarker(c: WorkspaceClient): Promise<BusEvent[]> {
  const marker = await c.createLabel('zz-marker');
  await expect
    .poll(() => busEvents(c.ws).some((e) => e['detail-type'] === 'Label Created' && e.detail.data.slug === marker.slug), {
      timeout: 20_000,
    })
    .toBe(true);
  return busEvents(c.ws).filter((e) => !(e['detail-type'] === 'Label Created' && e.detail.data.slug === marker.slug));
}

const types = (events: BusEvent[]) => events.map((e) => e['detail-type']);

describe('outbound events', () => {
  test('projects: created, updated, duplicated, deleted, each once, with actor, data and previous', async () => {
    const c = await workspaceClient('ev');
    await c.createProject('Apollo', { description: 'Moon' });
    const got = (await c.get('/projects/apollo')).body.data;
    const updated = (await c.put('/projects/apollo', { name: 'Apollo 11', status: 'completed' })).body.data;
    const copy = (await c.post('/projects/apollo/duplicate')).body.data;
    expect((await c.del(`/projects/${copy.slug}`)).status).toBe(200);
    const events = await eventsUntilMarker(c);
    expect(types(events)).toEqual(['Project Created', 'Project Updated', 'Project Duplicated', 'Project Deleted']);
    const [created, update, duplicated, deleted] = events as [BusEvent, BusEvent, BusEvent, BusEvent];
    for (const e of events) {
      expect(e.source).toBe('project-label-service');
      expect(e.id).toBe(e.detail.event_id);
      expect(e.detail.actor).toEqual({ username: 'tester' });
      expect(e.detail.company_slug).toBe(c.ws);
      expect(Date.parse(e.detail.occurred_at)).not.toBeNaN();
    }
    expect(created.detail.data).toEqual(got);
    expect(update.detail.data).toEqual(updated);
    expect(update.detail.previous).toEqual(got);
    expect(duplicated.detail).toMatchObject({ source_slug: 'apollo', data: { slug: copy.slug, name: 'Apollo 11 (copy)' } });
    expect(deleted.detail.data.slug).toBe(copy.slug);
    expect(deleted.detail.previous).toEqual(deleted.detail.data);
    expect(new Set(events.map((e) => e.detail.event_id)).size).toBe(events.length);
  });

  test('labels: created, updated (rename and recolor), deleted; attach and detach per task and for the label set', async () => {
    const c = await workspaceClient('ev');
    await c.createProject('Web');
    const bug = await c.createLabel('Bug', 'FF0000');
    await c.put('/projects-labels/bug', { title: 'Defect' });
    await c.put('/projects-labels/bug', { color: '00FF00' });
    const on = (body: unknown) => c.post('/projects-labels/bug/attach', body, { project_slug: 'web' });
    const off = (params: Record<string, string>) => c.del('/projects-labels/bug/detach', undefined, { project_slug: 'web', ...params });
    expect((await on({ task_uuid: 't1' })).status).toBe(200);
    expect((await on({ task_uuid: 't1' })).status).toBe(200); // idempotent: no second event
    expect((await on({ task_uuids: ['t2', 't3'] })).status).toBe(200);
    expect((await on({})).status).toBe(200); // the project's label set
    expect((await off({ task_uuid: 't2' })).status).toBe(200);
    expect((await off({ task_uuid: 't2' })).status).toBe(200); // idempotent: no second event
    expect((await off({})).status).toBe(200);
    const toggle = (task: string) => c.post(`/task-labels/bug/toggle`, {}, { project_slug: 'web', task_uuid: task });
    expect((await toggle('t9')).status).toBe(200);
    expect((await toggle('t9')).status).toBe(200);
    expect((await c.del('/projects-labels/bug')).status).toBe(200);
    // The delete's detaches come from its cascade, a stream round later: all of them before the marker.
    await streamDrained();
    const events = (await eventsUntilMarker(c)).filter((e) => e['detail-type'] !== 'Project Created');
    expect(types(events)).toEqual([
      'Label Created',
      'Label Updated',
      'Label Updated',
      'Label Attached',
      'Label Attached',
      'Label Attached',
      'Label Attached',
      'Label Detached',
      'Label Detached',
      'Label Attached',
      'Label Detached',
      'Label Deleted',
      // The delete takes it off the tasks still carrying it: a detach each, by the deleter.
      'Label Detached',
      'Label Detached',
    ]);
    const view = { id: bug.id, slug: 'bug', title: 'Defect', color: '00FF00' };
    expect(events[1]!.detail).toMatchObject({ data: { title: 'Defect', color: 'FF0000' }, previous: { title: 'Bug', color: 'FF0000' } });
    expect(events[2]!.detail).toMatchObject({ data: view, previous: { title: 'Defect', color: 'FF0000' } });
    const links = events.filter((e) => ['Label Attached', 'Label Detached'].includes(e['detail-type']));
    expect(links.map((e) => e.detail.task_uuid ?? '(set)')).toEqual(['t1', 't2', 't3', '(set)', 't2', '(set)', 't9', 't9', 't1', 't3']);
    for (const e of links) expect(e.detail).toMatchObject({ actor: { username: 'tester' }, project_slug: 'web', label: view });
    expect(events.find((e) => e['detail-type'] === 'Label Deleted')!.detail).toMatchObject({
      data: view,
      previous: view,
      actor: { username: 'tester' },
    });
  });

  test('a refused request yields no event, and nothing internal ever appears', async () => {
    const c = await workspaceClient('ev');
    await c.createProject('Web');
    await c.createLabel('Bug');
    const refused = [
      await c.post('/projects', { name: '' }),
      await c.post('/projects-labels', { title: 'bug', color: '000000' }),
      await c.put('/projects/nope', { name: 'X' }),
      await c.post('/projects-labels/nope/attach', { task_uuid: 't' }, { project_slug: 'web' }),
      await c.post('/projects-labels/bug/attach', { task_uuid: 't' }, { project_slug: 'nope' }),
      await c.del('/projects-labels/nope'),
      await c.del('/projects/nope'),
      await c.put('/projects-labels/bug', { color: 'nothex' }),
    ];
    expect(refused.map((r) => r.status)).toEqual([422, 409, 404, 404, 404, 404, 404, 422]);
    const events = await eventsUntilMarker(c);
    expect(types(events)).toEqual(['Project Created', 'Label Created']);
    for (const e of busEvents(c.ws)) {
      expect(PUBLIC_TYPES).toContain(e['detail-type']);
      expect(JSON.stringify(e.detail)).not.toMatch(/"(PK|SK|GSI\d\w*|title_norm|updated_by|created_by|n|v|ttl)":/);
    }
  });
});
