import fc from 'fast-check';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from 'vitest';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { keys, WORKSPACE_COPIES } from '#store/keys';
import { tableName } from '#store/table';
import { settledViolations } from '#support/settle';
import { workspaceClient } from '#support/api';
import { hostileText } from '#support/hostile';

/** The text rules docs/api.md promises, tried with what a careless or hostile client sends. */
describe('names and titles refuse what cannot be shown safely, naming the field', () => {
  test.each([
    ['a newline', 'Web\nsite'],
    ['a tab', 'Web\tsite'],
    ['a C1 control (NEL)', 'Web\u0085site'],
    ['DEL', 'Web\u007fsite'],
    ['a right-to-left override (Trojan Source)', 'admin\u202Etxt.exe'],
    ['a left-to-right isolate', 'Web\u2066site'],
    ['a lone high surrogate', 'Web\ud800site'],
    ['a lone low surrogate', '\udc00'],
  ])('a project name with %s is a 422 on create and update, and nothing changes', async (_what, name) => {
    const c = await workspaceClient('txt');
    const res = await c.post('/projects', { name });
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['name']);
    await c.createProject('Keep');
    const upd = await c.put('/projects/keep', { name });
    expect(upd.status).toBe(422);
    expect((await c.get('/projects/keep')).body.data.name).toBe('Keep');
    expect((await c.get('/projects')).body.data).toHaveLength(1);
  });

  test.each([
    ['a newline', 'Bu\ng'],
    ['a bidi override', '\u202EgubX'],
    ['a lone surrogate', 'B\ud83dug'],
  ])('a label title with %s is a 422 naming title', async (_what, title) => {
    const c = await workspaceClient('txt');
    const res = await c.post('/projects-labels', { title, color: 'FF0000' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['title']);
    expect((await c.get('/projects-labels')).body.data).toEqual([]);
  });

  test.each([
    ['\u200B\u200B', '"\\u200B\\u200B"'],
    ['\u200D', '"\\u200D"'],
    ['\u2060\uFEFF', '"\\u2060\\uFEFF"'],
    ['\u00AD', '"\\u00AD"'],
    [' \u200B \u3000 ', '" \\u200B \\u3000 "'],
  ])('a name of only invisible characters (%j) is empty, and the message shows them as %s', async (name, shown) => {
    const c = await workspaceClient('txt');
    const res = await c.post('/projects', { name });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toEqual({
      field: 'name',
      message: `name: ${shown} must not be empty or invisible characters only; use 1 to 255 characters`,
    });
    expect((await c.post('/projects-labels', { title: name, color: 'FF0000' })).status).toBe(422);
  });

  test('descriptions keep their line breaks and tabs but refuse other controls and bidi overrides', async () => {
    const c = await workspaceClient('txt');
    const ok = await c.post('/projects', { name: 'Notes', description: 'line one\n\tline two\r\n' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.description).toBe('line one\n\tline two');
    for (const description of ['a\u0000b', 'a\u202Eb', 'a\u0085b']) {
      const res = await c.post('/projects', { name: 'Other', description });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe('description');
    }
  });

  test('names are stored NFC-normalised', async () => {
    const c = await workspaceClient('txt');
    const res = await c.post('/projects', { name: 'Cafe\u0301' });
    expect(res.body.data.name).toBe('Caf\u00e9');
  });
});

describe('label titles are unique by their folded form (NFKC, full case folding, no invisible characters)', () => {
  test.each([
    ['Bug', 'ＢＵＧ'],
    ['Bug', 'B\u200Bug'],
    ['Bug', 'bug\u00AD'],
    ['straße', 'STRASSE'],
    ['ﬁx', 'FIX'],
    ['Ⅻ', 'xii'],
    ['Café', 'cafe\u0301'],
  ])('%j then %j: 409, on create and on rename', async (first, second) => {
    const c = await workspaceClient('fold');
    await c.createLabel(first);
    const res = await c.post('/projects-labels', { title: second, color: '000000' });
    expect(res.status, res.text).toBe(409);
    const other = await c.createLabel('Other');
    expect((await c.put(`/projects-labels/${other.slug}`, { title: second })).status).toBe(409);
    expect((await c.get('/projects-labels')).body.data.map((l: { title: string }) => l.title).sort()).toEqual([first, 'Other'].sort());
  });

  test('find by name folds the same way', async () => {
    const c = await workspaceClient('fold');
    await c.createProject('Straße Nord');
    expect((await c.get('/projects', { name: 'STRASSE' })).body.data.map((p: { name: string }) => p.name)).toEqual(['Straße Nord']);
    expect((await c.get('/projects', { name: 'ｓｔｒａ' })).body.data).toHaveLength(1);
  });
});

describe('generated hostile text never makes a 5xx, and what is accepted reads back as stored', () => {
  test('project names and label titles', async () => {
    const c = await workspaceClient('gen');
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        const project = await c.post('/projects', { name: text });
        expect(project.status, `${JSON.stringify(text)}: ${project.text}`).toBeLessThan(500);
        if (project.status === 201) {
          accepted++;
          const got = await c.get(`/projects/${project.body.data.slug}`);
          expect(got.body.data.name).toBe(project.body.data.name);
          expect((await c.post(`/projects/${project.body.data.slug}/duplicate`)).status).toBe(201);
        } else expect(project.status).toBe(422);
        const label = await c.post('/projects-labels', { title: text, color: 'ABCDEF' });
        expect(label.status, `${JSON.stringify(text)}: ${label.text}`).toBeLessThan(500);
        expect([201, 409, 422]).toContain(label.status);
      }),
      { seed: 20261122, numRuns: 60 },
    );
    console.log(`hostile text: 60 generated names, ${accepted} accepted`);
    expect(accepted).toBeGreaterThan(0);
  });
});

describe('labels written under the earlier folding (lower case after NFC)', () => {
  test('are renamed and deleted cleanly, releasing their old title guard', async () => {
    const c = await workspaceClient('fold');
    const label = await c.createLabel('Größe');
    // Put the label back as the service stored it before: title_norm and guard keyed 'größe'.
    const oldKey = 'größe';
    const now = await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelTitleGuardOwn(c.ws, titleKey('Größe')) }));
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelTitleGuardOwn(c.ws, titleKey('Größe')) }));
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...now.Item, ...keys.labelTitleGuardOwn(c.ws, oldKey) } }));
    // The item and its copies alike (store/copies.ts: npm run rekey copies a label as its item is).
    for (const Key of [
      keys.label(c.ws, label.slug),
      ...Array.from({ length: WORKSPACE_COPIES }, (_, n) => keys.labelCopy(c.ws, label.slug, n)),
    ])
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET title_norm = :k',
          ExpressionAttributeValues: { ':k': oldKey },
        }),
      );
    expect((await c.put(`/projects-labels/${label.slug}`, { title: 'Size' })).status).toBe(200);
    expect(await settledViolations([c.ws])).toEqual([]);
    expect((await c.post('/projects-labels', { title: 'größe', color: '000000' })).status).toBe(201);
    expect((await c.del(`/projects-labels/${label.slug}`)).status).toBe(200);
    expect(await settledViolations([c.ws])).toEqual([]);
  });
});

describe('the label list', () => {
  test('pages by number like every list, next_cursor null exactly on the last page, and past the end is empty', async () => {
    const c = await workspaceClient('fold');
    for (const t of ['a', 'b', 'c', 'd', 'e']) await c.createLabel(t);
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const res = await c.get('/projects-labels', { page: String(page), per_page: '2' });
      expect(res.body.meta).toEqual({ limit: 2, next_cursor: page < 3 ? expect.any(String) : null, current_page: page, per_page: 2 });
      pages.push(res.body.data.map((l: { title: string }) => l.title));
    }
    expect(pages).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect((await c.get('/projects-labels', { page: '4', per_page: '2' })).body.data).toEqual([]);
    expect((await c.get('/projects-labels', { cursor: 'abc' })).status).toBe(422);
    expect((await c.get('/projects-labels')).body.data).toHaveLength(5);
  });
});
