import type { MiddlewareStack } from '@smithy/types';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { createLabel, getLabel, updateLabel } from '#domain/labels';
import { createProject, getProject, updateProject } from '#domain/projects';
import { db } from '#store/client';
import { call, uniqueWorkspace, workspaceClient, type WorkspaceClient } from '#support/api';
import { streamDrained } from '#support/settle';
import { localStack } from '#support/stack';
import { PreconditionFailed } from '#domain/errors';
import { PROBLEMS, toProblem } from '#wire/problems';

/**
 * Concurrent writers never lose each other's changes, and a change that changes nothing is no change.
 * The races are made certain, not hoped for: a hook on the DocumentClient runs the other writer right
 * after the first one's read, before its write.
 */
const actor = { name: 'Racer', username: 'racer' };

/**
 * Runs `between` once, right after the next read (GetItem) of a project or label item returns: of the item itself, not
 * of what is read beside it (a project's kept stats are read at the same time, and may come back first).
 */
let afterNextRead: (() => Promise<unknown>) | undefined;
const ofAnItem = (input: { Key?: { SK?: string } }) => /^(PROJECT|LABEL)#/.test(input.Key?.SK ?? '');
(db.middlewareStack as MiddlewareStack<any, any>).add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'GetItemCommand' && afterNextRead && ofAnItem(args.input)) {
      const between = afterNextRead;
      afterNextRead = undefined;
      await between();
    }
    return result;
  },
  { step: 'initialize', name: 'raceBetweenReadAndWrite', override: true },
);
afterEach(() => {
  afterNextRead = undefined;
});

describe('a label renamed while it is recolored', () => {
  test('keeps both: the new title and the new color', async () => {
    const ws = uniqueWorkspace('race');
    const label = await createLabel(ws, { title: 'Bug', color: 'FF0000' }, actor);
    afterNextRead = () => updateLabel(ws, label.slug, { color: '00FF00' }, actor);
    const renamed = await updateLabel(ws, label.slug, { title: 'Defect' }, actor);
    const stored = await getLabel(ws, label.slug);
    expect({ title: stored.title, color: stored.color }).toEqual({ title: 'Defect', color: '00FF00' });
    // The answer is what was stored, not a mix of the first read and the write.
    expect({ title: renamed.title, color: renamed.color }).toEqual({ title: 'Defect', color: '00FF00' });
  });

  test('a rename racing a rename: the later one wins whole, the title guard follows it', async () => {
    const ws = uniqueWorkspace('race');
    const label = await createLabel(ws, { title: 'Bug', color: 'FF0000' }, actor);
    afterNextRead = () => updateLabel(ws, label.slug, { title: 'Issue', color: '0000FF' }, actor);
    await updateLabel(ws, label.slug, { title: 'Defect' }, actor);
    const stored = await getLabel(ws, label.slug);
    expect({ title: stored.title, color: stored.color }).toEqual({ title: 'Defect', color: '0000FF' });
    // The title "Issue" was released when "Defect" replaced it: a new label may take it.
    await expect(createLabel(ws, { title: 'Issue', color: '111111' }, actor)).resolves.toMatchObject({ title: 'Issue' });
    await expect(createLabel(ws, { title: 'defect', color: '111111' }, actor)).rejects.toThrow(/already exists/);
  });

  test('with If-Match, a change in between is a 412, and nothing is written over', async () => {
    const ws = uniqueWorkspace('race');
    const label = await createLabel(ws, { title: 'Bug', color: 'FF0000' }, actor);
    afterNextRead = () => updateLabel(ws, label.slug, { color: '00FF00' }, actor);
    const stillAsRead = () => undefined;
    const refused = await updateLabel(ws, label.slug, { title: 'Defect' }, actor, stillAsRead).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PreconditionFailed);
    expect(PROBLEMS[toProblem(refused).code].status).toBe(412);
    const stored = await getLabel(ws, label.slug);
    expect({ title: stored.title, color: stored.color }).toEqual({ title: 'Bug', color: '00FF00' });
  });
});

describe('a project updated by two writers at once', () => {
  test('keeps both fields', async () => {
    const ws = uniqueWorkspace('race');
    const project = await createProject(ws, { name: 'Apollo', owner: actor });
    afterNextRead = () => updateProject(ws, project.slug, { description: 'To the moon' }, actor);
    // An If-Match update reads first: the other writer lands between its read and its write.
    const refused = await updateProject(ws, project.slug, { name: 'Artemis' }, actor, () => undefined).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PreconditionFailed);
    expect(PROBLEMS[toProblem(refused).code].status).toBe(412);
    await updateProject(ws, project.slug, { name: 'Artemis' }, actor);
    const stored = await getProject(ws, project.slug);
    expect({ name: stored.name, description: stored.description }).toEqual({ name: 'Artemis', description: 'To the moon' });
  });
});

describe('over HTTP, many renames and recolors at once', () => {
  test('every label ends with the last title and the last color each writer sent', async () => {
    const c = await workspaceClient('race');
    const labels = await Promise.all(Array.from({ length: 12 }, (_, i) => c.createLabel(`Label ${i}`, 'FF0000')));
    const answers = await Promise.all(
      labels.flatMap((l, i) => [
        c.put(`/projects-labels/${l.slug}`, { title: `Renamed ${i}` }),
        c.put(`/projects-labels/${l.slug}`, { color: '00FF00' }),
      ]),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    for (const [i, l] of labels.entries()) {
      const { body } = await c.get(`/projects-labels/${l.slug}`);
      expect({ title: body.data.title, color: body.data.color }).toEqual({ title: `Renamed ${i}`, color: '00FF00' });
    }
  });
});

function busEvents(ws: string): { 'detail-type': string }[] {
  const file = localStack().eventsFile;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.detail.company_slug === ws);
}

async function etagOf(c: WorkspaceClient, path: string): Promise<string> {
  return (await c.get(path)).headers.get('etag')!;
}

describe('an update that changes nothing', () => {
  test('a project: 200 with the same ETag, nothing written, no event', async () => {
    const c = await workspaceClient('noop');
    const { slug } = await c.createProject('Apollo', { description: 'Moon', visibility: 'private' });
    await streamDrained();
    const before = await c.get(`/projects/${slug}`);
    const eventsBefore = busEvents(c.ws).length;
    for (const body of [
      { name: 'Apollo' },
      { description: 'Moon', visibility: 'private' },
      { status: before.body.data.status },
      { settings: { default_workflow: before.body.data.settings.default_workflow } },
      {},
    ]) {
      const res = await c.put(`/projects/${slug}`, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.headers.get('etag'), JSON.stringify(body)).toBe(before.headers.get('etag'));
      expect(res.body.data.updated_at).toBe(before.body.data.updated_at);
    }
    expect(await etagOf(c, `/projects/${slug}`)).toBe(before.headers.get('etag'));
    await streamDrained();
    expect(busEvents(c.ws).slice(eventsBefore)).toEqual([]);
    // A real change still is one: one event, a new ETag.
    const changed = await c.put(`/projects/${slug}`, { name: 'Apollo', description: 'Mars' });
    expect(changed.headers.get('etag')).not.toBe(before.headers.get('etag'));
    await streamDrained();
    expect(
      busEvents(c.ws)
        .slice(eventsBefore)
        .map((e) => e['detail-type']),
    ).toEqual(['Project Updated']);
  });

  test('a label: 200 with the same ETag, nothing written, no event', async () => {
    const c = await workspaceClient('noop');
    const label = await c.createLabel('Bug', 'FF0000');
    await streamDrained();
    const before = await c.get(`/projects-labels/${label.slug}`);
    const eventsBefore = busEvents(c.ws).length;
    for (const body of [{ title: 'Bug' }, { color: 'FF0000' }, { color: '#ff0000' }, { title: 'Bug', color: 'FF0000' }]) {
      const res = await c.put(`/projects-labels/${label.slug}`, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.headers.get('etag'), JSON.stringify(body)).toBe(before.headers.get('etag'));
    }
    // With If-Match too.
    const conditional = await call('PUT', c.q(`/projects-labels/${label.slug}`), {
      token: c.token,
      body: { title: 'Bug' },
      headers: { 'if-match': before.headers.get('etag')! },
    });
    expect(conditional.status).toBe(200);
    expect(conditional.headers.get('etag')).toBe(before.headers.get('etag'));
    await streamDrained();
    expect(busEvents(c.ws).slice(eventsBefore)).toEqual([]);
    expect(await etagOf(c, `/projects-labels/${label.slug}`)).toBe(before.headers.get('etag'));
  });
});
