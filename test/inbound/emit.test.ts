import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { apiUrl, workspaceClient } from '#support/api';
import { runTool } from '#support/tools';

/**
 * `npm run emit` against the running stack says what became of the event, as the consumer decided:
 * counted, ignored and why, or dead-lettered with its reason (exit 1); and it says which id is the
 * event's own (`event_id`) and which the bus gave it.
 */
const nowhere = mkdtempSync(join(tmpdir(), 'pls-emit-'));
afterAll(() => rmSync(nowhere, { recursive: true, force: true }));

/** `npm run emit` on the test run's local API (PORT names it; no stack file in DATA_DIR). */
const emit = (type: string, detail: Record<string, unknown>) =>
  runTool('bin/emit.ts', [type, JSON.stringify(detail)], { PORT: new URL(apiUrl()).port, DATA_DIR: nowhere });

describe('npm run emit', () => {
  test('prints the consumer’s verdict for each kind of outcome, and which id is which', async () => {
    const c = await workspaceClient('emit');
    await c.createProject('Web');
    const task = { company_slug: c.ws, project_slug: 'web', task_uuid: 't-1' };
    const [counted, unknown, early, malformed] = await Promise.all([
      emit('Task Created', task),
      emit('Task Created', { ...task, project_slug: 'nowhere' }),
      emit('Task Created', { ...task, task_uuid: 't-2', occurred_at: '2001-01-01T00:00:00Z' }),
      emit('Task Created', { company_slug: c.ws, project_slug: 'web', event_id: 'no-task' }),
    ]);
    const [idLine, busLine, verdict] = counted.stdout.trimEnd().split('\n');
    const eventId = /^Task Created: event_id (\S+) \(the event's own id, in its detail: the service counts each once\)$/.exec(idLine!)?.[1];
    const busId = /^ {2}bus id (\S+) \(the id the bus gave this delivery, EventId in its PutEvents answer\)$/.exec(busLine!)?.[1];
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(busId).toMatch(/^[0-9a-f-]{36}$/);
    expect(busId).not.toBe(eventId);
    expect(counted.code, counted.stderr).toBe(0);
    expect(verdict).toBe(`counted: the stats of project "web" of workspace ${c.ws} took it in.`);
    expect(counted.stderr).toBe(`Using the local API at ${apiUrl()}.\n`);
    // The counted event is in the stats when emit has answered: nothing to wait for.
    expect((await c.get('/projects/web/stats')).body.data.tasks_count).toBe(1);

    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout.trimEnd().split('\n')[2]).toBe(`ignored: there is no project "nowhere" of workspace ${c.ws}; nothing counted.`);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stdout.trimEnd().split('\n')[2]).toBe(
      `ignored: it happened (occurred_at 2001-01-01T00:00:00Z) before project "web" of workspace ${c.ws} was created; nothing counted.`,
    );
    expect(malformed.code).toBe(1);
    expect(malformed.stdout).toMatch(/^Task Created: event_id no-task \(/);
    // On stdout after the ids, as every verdict: a reader's terminal shows them in order.
    expect(malformed.stdout.trimEnd().split('\n').at(-1)).toBe(
      'dead-lettered: detail.task_uuid: required for Task Created. Fix the event and emit it again.',
    );

    const again = await emit('Task Created', { ...task, event_id: eventId });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`event_id ${eventId} (`);
    expect(again.stdout.trimEnd().split('\n')[2]).toMatch(
      /^ignored: it changes nothing in the stats of project "web" .*; nothing counted\.$/,
    );
  });
});
