import { beforeAll, describe, expect, test } from 'vitest';
import { SCOPES, type Scope } from '#domain/scopes';
import { routes, type Route } from '#http/routes';
import { loadHandler } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import { call, tokenFor, workspaceClient, type Response, type WorkspaceClient } from '#support/api';
import { sampleRequest, withQuery, type Fixture } from '#support/requests';
import { streamDrained } from '#support/settle';

/**
 * The scope matrix, generated from the route table: a token of every single scope and of every pair of
 * scopes sends every route's sample request, and is answered or refused (403) as the route's row and the
 * data the request carries say. Then, for each kind of data, none of it reaches a token without its read
 * scope: through a route's answer, through a webhook the token controls, or through the history.
 */

/** What no token without the kind's read scope may ever receive, and the scope that reads it. */
const SECRETS = {
  project: { text: ['Merger Plans', 'Confidential: merger with Initech'], scope: 'projects:read' },
  label: { text: ['Layoff List'], scope: 'labels:read' },
  // The webhook's URL (its host included) is webhook data; its query, the receiver's credential, only a writer's.
  webhook: { text: ['hooks.example.com'], scope: 'webhooks:read' },
  webhookCredential: { text: ['SLACK-LIKE-SECRET'], scope: 'webhooks:write' },
} as const satisfies Record<string, { text: readonly string[]; scope: Scope }>;

/**
 * What the fixture's requests carry beyond their row, as this file states it: the fixture webhook sends
 * `Project Created` and `Label Attached`, so redelivering or recovering its deliveries, or widening it to
 * `*` (the update's sample), needs both read scopes; the create's sample subscribes to both too.
 */
const CARRIED: Record<string, readonly Scope[]> = {
  'create-webhook': ['projects:read', 'labels:read'],
  'update-webhook': ['projects:read', 'labels:read'],
  'redeliver-webhook-delivery': ['projects:read', 'labels:read'],
  'recover-webhook': ['projects:read', 'labels:read'],
};

/** Whether a token of `scopes` is refused the route's sample request. */
function refused(route: Route, scopes: readonly Scope[]): boolean {
  const needs = [route.scope, ...(route.reads ? [route.reads] : []), ...(CARRIED[route.name] ?? [])];
  if (needs.some((s) => !scopes.includes(s))) return true;
  // The history shows a token the entries it may read: one that may read neither projects nor labels is refused.
  return route.name === 'list-activities' && !scopes.includes('projects:read') && !scopes.includes('labels:read');
}

const SINGLES = SCOPES.map((s) => [s]);
const PAIRS = SCOPES.flatMap((a, i) => SCOPES.slice(i + 1).map((b) => [a, b]));
const GRANTS: Scope[][] = [...SINGLES, ...PAIRS];

let c: WorkspaceClient;
let fixture: Fixture;
let adminHook: string;

/** The webhook's deliveries once there is one (the log is what a user watches too). */
async function firstDelivery(webhook: string): Promise<string> {
  for (;;) {
    const found = (await c.get(`/webhooks/${webhook}/deliveries`)).body.data;
    if (found.length) return found.at(-1).id;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  c = await workspaceClient('scopes');
  const hook = await c.post('/webhooks', {
    url: 'https://hooks.example.com/matrix?token=SLACK-LIKE-SECRET',
    events: ['Project Created', 'Label Attached'],
  });
  expect(hook.status, hook.text).toBe(201);
  adminHook = hook.body.data.id;
  await c.createProject('Merger Plans', { description: 'Confidential: merger with Initech', visibility: 'private' });
  await c.createLabel('Layoff List');
  expect((await c.post('/projects-labels/layoff-list/attach', { task_uuid: 'task-1' }, { project_slug: 'merger-plans' })).status).toBe(200);
  fixture = {
    ws: c.ws,
    project: 'merger-plans',
    label: 'layoff-list',
    task: 'task-1',
    webhook: adminHook,
    delivery: await firstDelivery(adminHook),
  };
  await streamDrained();
});

/** Every text of a kind the token may not read that the answer holds. */
function leaks(res: Response, scopes: readonly Scope[]): string[] {
  return Object.values(SECRETS).flatMap(({ text, scope }) => (scopes.includes(scope) ? [] : text.filter((t) => res.text.includes(t))));
}

describe('the matrix: every route, for a token of each single scope and each pair', () => {
  test('each handler requires what its row says (its scope, and the read scope of what it answers)', async () => {
    for (const route of routes) {
      const handler = await loadHandler<{ scopes: Scope[] }>(repoRoot, route.handler);
      expect(handler.scopes, route.name).toEqual(route.reads ? [route.scope, route.reads] : [route.scope]);
    }
  });

  test(`${GRANTS.length} grants x ${routes.length} routes: answered or refused as the row says, and no answer holds data of a kind the token may not read`, async () => {
    // The deletes aim at nothing (404): every grant finds the fixture as it was.
    const targets = { ...fixture, doomedProject: 'nothing-here', doomedLabel: 'nothing-here' } as Fixture;
    const aimed = (route: Route) =>
      sampleRequest(route, route.name === 'delete-webhook' ? { ...targets, webhook: 'wh_nothing_here' } : targets);
    const outcomes: string[] = [];
    const wrong: string[] = [];
    const queue = [...GRANTS];
    // Four grants at a time, each sending its routes one after another.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let scopes = queue.shift(); scopes; scopes = queue.shift()) {
          const token = await tokenFor(c.ws, { scopes });
          for (const route of routes) {
            const req = aimed(route);
            const res = await call(route.method, withQuery(req.path, req.query), {
              token,
              ...(req.body === undefined ? {} : { body: req.body }),
            });
            const was = res.status === 403 ? 'refused' : 'answered';
            const should = refused(route, scopes) ? 'refused' : 'answered';
            outcomes.push(was);
            if (was !== should) wrong.push(`${scopes.join('+')} ${route.name}: ${res.status} ${res.text.slice(0, 160)}`);
            if (res.status === 403) expect(res.body).toMatchObject({ status: 403, error_code: 'FORBIDDEN' });
            const leaked = leaks(res, scopes);
            if (leaked.length) wrong.push(`${scopes.join('+')} ${route.name} received ${leaked.join(', ')}`);
          }
        }
      }),
    );
    expect(wrong).toEqual([]);
    expect(outcomes).toHaveLength(GRANTS.length * routes.length);
    // Both sides are exercised: the matrix is not all refusals (or all answers).
    expect(outcomes.filter((o) => o === 'answered').length).toBeGreaterThan(100);
    expect(outcomes.filter((o) => o === 'refused').length).toBeGreaterThan(500);
  });
});

describe('a webhook carries only what its token may read', () => {
  const hookUrl = 'https://hooks.example.com/mine';
  const asToken = (token: string) => ({
    get: (path: string) => call('GET', c.q(path), { token }),
    post: (path: string, body?: unknown) => call('POST', c.q(path), { token, ...(body === undefined ? {} : { body }) }),
    put: (path: string, body: unknown) => call('PUT', c.q(path), { token, body }),
  });

  test('a webhooks token without projects:read cannot subscribe to, widen to, repoint or replay project events', async () => {
    const t = asToken(await tokenFor(c.ws, { scopes: ['webhooks:read', 'webhooks:write', 'labels:read'] }));
    const everything = await t.post('/webhooks', { url: hookUrl, events: ['*'] });
    expect(everything.status, everything.text).toBe(403);
    expect(everything.body.detail).toMatch(/lacks the projects:read scope, which the webhook's events \(\*\) carry/);
    const mine = await t.post('/webhooks', { url: hookUrl, events: ['Label Created'] });
    expect(mine.status, mine.text).toBe(201);
    const id = mine.body.data.id;
    expect((await t.put(`/webhooks/${id}`, { events: ['Label Created', 'project.updated'] })).status).toBe(403);
    expect((await t.put(`/webhooks/${id}`, { project_slug: 'merger-plans' })).status).toBe(200);
    expect((await t.put(`/webhooks/${id}`, { url: `${hookUrl}/moved` })).status).toBe(200);
    // The administrator's webhook carries project events: not this token's to repoint or replay.
    const before = (await c.get(`/webhooks/${adminHook}`)).body.data;
    for (const [what, res] of [
      ['repoint', await t.put(`/webhooks/${adminHook}`, { url: 'https://attacker.example.net/x' })],
      ['narrow it to a project', await t.put(`/webhooks/${adminHook}`, { project_slug: 'merger-plans' })],
      ['redeliver', await t.post(`/webhooks/${adminHook}/deliveries/${fixture.delivery}/redeliver`)],
      ['recover', await t.post(`/webhooks/${adminHook}/recover`, { since: '2020-01-01T00:00:00Z' })],
    ] as const) {
      expect(res.status, `${what}: ${res.text}`).toBe(403);
      expect(res.body.detail, what).toContain('projects:read');
    }
    expect((await c.get(`/webhooks/${adminHook}`)).body.data).toEqual(before);
  });

  test('a token that may only read webhooks, or write them without the scopes of what one carries, sees its URL without its query or credentials; a writer that could set it sees it whole', async () => {
    const reader = asToken(await tokenFor(c.ws, { scopes: ['webhooks:read'] }));
    const seen = await reader.get(`/webhooks/${adminHook}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data.url).toBe('https://hooks.example.com/matrix');
    const listed = await reader.get('/webhooks');
    expect(listed.text).not.toContain('SLACK-LIKE-SECRET');
    expect(listed.body.data.find((w: { id: string }) => w.id === adminHook).url).toBe('https://hooks.example.com/matrix');
    expect((await c.get(`/webhooks/${adminHook}`)).body.data.url).toBe('https://hooks.example.com/matrix?token=SLACK-LIKE-SECRET');
    // A writer that could not point it elsewhere (it lacks projects:read, which the webhook's events carry) reads it as a reader does.
    const writer = asToken(await tokenFor(c.ws, { scopes: ['webhooks:read', 'webhooks:write', 'labels:read'] }));
    expect((await writer.get(`/webhooks/${adminHook}`)).body.data.url).toBe('https://hooks.example.com/matrix');
    expect((await writer.get('/webhooks')).text).not.toContain('SLACK-LIKE-SECRET');
  });
});

describe('the history answers by scope', () => {
  const history = (token: string, query: Record<string, string> = {}) =>
    call('GET', c.q('/activities', { from_context: 'company', ...query }), { token });

  test('activity:read alone reads nothing: a 403 that names the read scopes', async () => {
    const res = await history(await tokenFor(c.ws, { scopes: ['activity:read'] }));
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/projects:read and labels:read/);
  });

  test("with labels:read, only the labels' entries; with projects:read, only the projects'", async () => {
    const labels = await history(await tokenFor(c.ws, { scopes: ['activity:read', 'labels:read'] }));
    expect(labels.status).toBe(200);
    // The matrix above made more label entries (its updates, attaches and detaches); every entry is a label's.
    const labelTypes = new Set<string>(labels.body.data.map((e: { type: string }) => e.type));
    expect([...labelTypes].filter((t) => !t.startsWith('Label '))).toEqual([]);
    expect(labelTypes).toContain('Label Created');
    expect(labels.text).not.toContain('Merger Plans');
    expect(labels.text).not.toContain('Confidential');
    const projects = await history(await tokenFor(c.ws, { scopes: ['activity:read', 'projects:read'] }));
    expect(projects.status).toBe(200);
    const projectTypes = new Set<string>(projects.body.data.map((e: { type: string }) => e.type));
    expect([...projectTypes].filter((t) => !t.startsWith('Project '))).toEqual([]);
    expect(projectTypes).toContain('Project Created');
    expect(projects.text).not.toContain('Layoff List');
  });

  test('asking for a type the token may not read is a 403; a numbered page of a partial history is a 422', async () => {
    const token = await tokenFor(c.ws, { scopes: ['activity:read', 'labels:read'] });
    const asked = await history(token, { type: 'Label Created,project.created' });
    expect(asked.status).toBe(403);
    expect(asked.body.detail).toMatch(/lacks the projects:read scope/);
    const paged = await history(token, { page: '1' });
    expect(paged.status).toBe(422);
    expect(paged.body.errors).toEqual([{ field: 'page', message: expect.stringContaining('follow meta.next_cursor') }]);
    // A cursor of a wider token's query is not this one's.
    const wide = await history(c.token, { limit: '1' });
    const cursor = wide.body.meta.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    expect((await history(token, { limit: '1', cursor })).status).toBe(422);
  });
});
