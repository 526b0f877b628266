import { beforeAll, describe, expect, test } from 'vitest';
import { streamDrained } from '#support/settle';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { revokeToken } from '#domain/tokens';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import { readToken } from '#store/tokens';
import { SCOPES } from '#domain/scopes';
import { routes, type Route } from '#http/routes';
import { scanTable } from '#checker/invariants';
import { call, tokenFor, workspaceClient, type WorkspaceClient } from '#support/api';
import { sampleRequest, withQuery, type Fixture, type SampleRequest } from '#support/requests';

/**
 * Tenant isolation, generated from the route table: every route is called with every kind of bad
 * credential and with another workspace's resources, and must answer 401/403/404 with no data and
 * change nothing in either workspace.
 */
let a: WorkspaceClient;
let b: WorkspaceClient;
let fixtureA: Fixture;
let fixtureB: Fixture;
const tokens: Record<string, string> = {};

/** Both workspaces' items, once the stream has applied what earlier accepted writes derive (counters). */
async function snapshot(): Promise<string> {
  await streamDrained();
  const wanted = new Set([a.ws, b.ws]);
  const items = (await scanTable([...wanted])).filter((i) => wanted.has(i.workspace) || wanted.has(String(i.PK).slice(3)));
  return JSON.stringify(items.sort((x, y) => `${x.PK}|${x.SK}`.localeCompare(`${y.PK}|${y.SK}`)));
}

function send(route: Route, req: SampleRequest, headers: Record<string, string>) {
  return call(route.method, withQuery(req.path, req.query), { body: req.body, headers });
}

function expectNoData(res: { body: any; headers: Headers }) {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body.data).toBeUndefined();
}

beforeAll(async () => {
  a = await workspaceClient('iso-a');
  b = await workspaceClient('iso-b');
  fixtureA = { ws: a.ws, project: 'a-proj', label: 'a-label', task: 'task-a' };
  fixtureB = { ws: b.ws, project: 'b-proj', label: 'b-label', task: 'task-b' };
  for (const [c, f] of [
    [a, fixtureA],
    [b, fixtureB],
  ] as const) {
    await c.createProject(f.project.replace('-', ' '));
    await c.createLabel(f.label.replace('-', ' '));
    expect((await c.post(`/projects-labels/${f.label}/attach`, { task_uuid: f.task }, { project_slug: f.project })).status).toBe(200);
  }
  const expired = await tokenFor(a.ws, { expiresAt: new Date(Date.now() - 1000) });
  const revoked = await tokenFor(a.ws);
  await revokeToken(revoked.split('_')[1]!);
  tokens.expired = expired;
  tokens.revoked = revoked;
  tokens.unknown = `pls_${'a'.repeat(16)}_${'B'.repeat(43)}`;
  for (const scope of SCOPES) tokens[`without:${scope}`] = await tokenFor(a.ws, { scopes: SCOPES.filter((s) => s !== scope) });
  // Workspaces whose slugs contain, start, end or sit inside the real one: a substring check would let them in.
  tokens.prefix = await tokenFor(a.ws.slice(0, -2));
  tokens.longer = await tokenFor(`${a.ws}-eu`);
  tokens.suffix = await tokenFor(a.ws.slice(2));
  tokens.inside = await tokenFor(a.ws.slice(1, -1));
  tokens.around = await tokenFor([`x${a.ws}`, `${a.ws}x`, `eu-${a.ws}-eu`]);
  // A stored hash that differs from the real token's hash in its last byte only.
  tokens.lastByte = await tokenFor(a.ws);
  const { id, hash } = (await readToken(tokens.lastByte.split('_')[1]!))!;
  const flipped = hash.slice(0, -2) + (parseInt(hash.slice(-2), 16) ^ 1).toString(16).padStart(2, '0');
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.token(id),
      UpdateExpression: 'SET #h = :h',
      ExpressionAttributeNames: { '#h': 'hash' },
      ExpressionAttributeValues: { ':h': flipped },
    }),
  );
});

const credentialCases: [string, (route: Route) => Record<string, string>, number][] = [
  ['no token', () => ({}), 401],
  ['a Basic header', () => ({ authorization: 'Basic dXNlcjpwYXNz' }), 401],
  ['a bare Bearer', () => ({ authorization: 'Bearer' }), 401],
  ['a token with spaces', () => ({ authorization: 'Bearer abc def' }), 401],
  ['an unknown token', () => ({ authorization: `Bearer ${tokens.unknown}` }), 401],
  ['a tampered token', () => ({ authorization: `Bearer ${a.token.slice(0, -1)}${a.token.endsWith('A') ? 'B' : 'A'}` }), 401],
  ['an expired token', () => ({ authorization: `Bearer ${tokens.expired}` }), 401],
  ['a revoked token', () => ({ authorization: `Bearer ${tokens.revoked}` }), 401],
  ["another workspace's token", () => ({ authorization: `Bearer ${b.token}` }), 403],
  ['a token for a prefix of the workspace slug', () => ({ authorization: `Bearer ${tokens.prefix}` }), 403],
  ['a token for a longer slug starting with the workspace slug', () => ({ authorization: `Bearer ${tokens.longer}` }), 403],
  ['a token for a suffix of the workspace slug', () => ({ authorization: `Bearer ${tokens.suffix}` }), 403],
  ['a token for a slug inside the workspace slug', () => ({ authorization: `Bearer ${tokens.inside}` }), 403],
  ['a token for several slugs around the workspace slug', () => ({ authorization: `Bearer ${tokens.around}` }), 403],
  ['a token whose stored hash differs in its last byte only', () => ({ authorization: `Bearer ${tokens.lastByte}` }), 401],
  ["a token without the route's scope", (route) => ({ authorization: `Bearer ${tokens[`without:${route.scope}`]}` }), 403],
];

describe.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_name, route) => {
  test('refuses every bad credential with no data and no change', async () => {
    const before = await snapshot();
    for (const [name, headers, status] of credentialCases) {
      const res = await send(route, sampleRequest(route, fixtureA), headers(route));
      expect(res.status, name).toBe(status);
      expectNoData(res);
      if (status === 401) expect(res.headers.get('www-authenticate'), name).toBe('Bearer');
    }
    expect(await snapshot()).toBe(before);
  });

  test("answers 404 for another workspace's project or label and changes nothing", async () => {
    const req = sampleRequest(route, fixtureA);
    const foreign: SampleRequest[] = [];
    if (route.path.includes('{slug}')) {
      const kind = route.path.startsWith('/projects-labels') || route.path.startsWith('/task-labels') ? 'label' : 'project';
      foreign.push({ ...req, path: req.path.replace(`/${fixtureA[kind]}`, `/${fixtureB[kind]}`) });
    }
    if (req.query?.project_slug) foreign.push({ ...req, query: { ...req.query, project_slug: fixtureB.project } });
    if (route.name === 'list-labels')
      foreign.push({ ...req, query: { ...req.query, project_slug: fixtureB.project, task_uuid: fixtureB.task } });
    if (foreign.length === 0) return; // list and create name no resource but the workspace, covered above
    const before = await snapshot();
    for (const f of foreign) {
      const res = await send(route, f, { authorization: `Bearer ${a.token}` });
      expect(res.status, JSON.stringify(f)).toBe(404);
      expectNoData(res);
      expect(res.text).not.toContain(fixtureB.task);
    }
    expect(await snapshot()).toBe(before);
  });
});

test('a token granted two workspaces reaches both, and only those', async () => {
  const both = await tokenFor([a.ws, b.ws], { scopes: ['projects:read'] });
  expect((await call('GET', `/projects?company_slug=${a.ws}`, { token: both })).status).toBe(200);
  expect((await call('GET', `/projects?company_slug=${b.ws}`, { token: both })).body.data.map((p: { slug: string }) => p.slug)).toEqual([
    'b-proj',
  ]);
  expect((await call('GET', '/projects?company_slug=third-ws', { token: both })).status).toBe(403);
});

test('each 401 says which refusal it is and how to make a token; an unknown, a revoked and a tampered token share one sentence (issue 68)', async () => {
  const path = `/projects?company_slug=${a.ws}`;
  const detail = async (headers: Record<string, string>) => {
    const res = await call('GET', path, { headers });
    expect(res.status, JSON.stringify(headers)).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body.detail).toMatch(/ To make one: npm run token -- create --workspace <slug> .*the first npm start printed one\)\.$/);
    return res.body.detail as string;
  };
  expect(await detail({})).toMatch(/^No Authorization header: send Authorization: Bearer <token>\./);
  expect(await detail({ authorization: 'Basic dXNlcjpwYXNz' })).toMatch(/^The Authorization header is not a bearer token/);
  expect(await detail({ authorization: a.token })).toMatch(/^The Authorization header is not a bearer token/);
  expect(await detail({ authorization: `Bearer ${a.token.slice(0, -3)}` })).toMatch(
    /^The bearer token is not in the form of this service's tokens/,
  );
  const unknown = await detail({ authorization: `Bearer ${tokens.unknown}` });
  expect(unknown).toMatch(/^This token is not known to this API, or was revoked/);
  expect(await detail({ authorization: `Bearer ${tokens.revoked}` })).toBe(unknown);
  expect(await detail({ authorization: `Bearer ${tokens.lastByte}` })).toBe(unknown);
  expect(await detail({ authorization: `Bearer ${tokens.expired}` })).toMatch(/^This token expired at \d{4}-\d\d-\d\dT[\d:.]+Z\. /);
});

test('a 403 for a workspace the token is not granted names it, and the ones the token is granted', async () => {
  const res = await call('GET', `/projects?company_slug=${a.ws}`, { token: b.token });
  expect(res.status).toBe(403);
  expect(res.body.detail).toBe(
    `This token is not granted workspace ${a.ws} (it is granted ${b.ws}): use one that is, made with npm run token -- create --workspace ${a.ws}.`,
  );
});
