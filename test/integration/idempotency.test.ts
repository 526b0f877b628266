import { randomBytes, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { streamDrained } from '#support/settle';
import { describe, expect, test } from 'vitest';
import { scanTable } from '#checker/invariants';
import { Busy, Conflict } from '#domain/errors';
import { toProblem } from '#wire/problems';
import { claimIdempotencyKey, keepAnswer } from '#domain/idempotency';
import { fingerprintOf, idempotent, type IdempotentRequest } from '#http/idempotency';
import { db } from '#store/client';
import { ItemType } from '#store/keys';
import { tableName } from '#store/table';
import { call, tokenFor, workspaceClient, type Response, type WorkspaceClient } from '#support/api';
import { settledViolations } from '#support/settle';

/**
 * Idempotency-Key on every POST: a retry replays the first answer byte for byte, a different request
 * under the key is a 422, a running one a 409 with Retry-After; 5xx answers free the key.
 */
const keyed = (c: WorkspaceClient, path: string, key: string, body?: unknown, params?: Record<string, string>, token = c.token) =>
  call('POST', c.q(path, params), { token, headers: { 'Idempotency-Key': key }, ...(body === undefined ? {} : { body }) });

const projectsOf = async (c: WorkspaceClient) =>
  (await c.get('/projects', { per_page: '100' })).body.data as { slug: string; name: string }[];

function expectReplay(first: Response, again: Response): void {
  expect(again.status, again.text).toBe(first.status);
  expect(again.text).toBe(first.text);
  expect(again.headers.get('location')).toBe(first.headers.get('location'));
  expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  // A replay is a new request of its own.
  expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
}

describe('every POST replays under its key', () => {
  test('create project: the retry answers the first 201 byte for byte, and one project exists', async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const first = await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo' });
    expect(first.status, first.text).toBe(201);
    const again = await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo' });
    expectReplay(first, again);
    expect((await projectsOf(c)).map((p) => p.name)).toEqual(['Apollo']);
    // Even once the project is gone, the key still answers what it answered (and creates nothing).
    expect((await c.del('/projects/apollo')).status).toBe(200);
    expectReplay(first, await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo' }));
    expect(await projectsOf(c)).toEqual([]);
  });

  test('duplicate project: a retried duplicate makes one copy', async () => {
    const c = await workspaceClient('idem');
    await c.createProject('Apollo');
    const key = randomUUID();
    const first = await keyed(c, '/projects/apollo/duplicate', key, {});
    expect(first.status, first.text).toBe(201);
    expectReplay(first, await keyed(c, '/projects/apollo/duplicate', key, {}));
    expect((await projectsOf(c)).length).toBe(2);
  });

  test('create label, attach and toggle: each runs once per key', async () => {
    const c = await workspaceClient('idem');
    await c.createProject('Web');
    const created = await keyed(c, '/projects-labels', 'label-1', { title: 'Bug', color: 'FF0000' });
    expect(created.status, created.text).toBe(201);
    expectReplay(created, await keyed(c, '/projects-labels', 'label-1', { title: 'Bug', color: 'FF0000' }));

    const attached = await keyed(c, '/projects-labels/bug/attach', 'attach-1', { task_uuid: 't1' }, { project_slug: 'web' });
    expect(attached.status, attached.text).toBe(200);
    expectReplay(attached, await keyed(c, '/projects-labels/bug/attach', 'attach-1', { task_uuid: 't1' }, { project_slug: 'web' }));

    // A toggle flips; its retry must not flip back.
    const toggle = (key: string) => keyed(c, '/task-labels/bug/toggle', key, undefined, { project_slug: 'web', task_uuid: 't2' });
    const on = await toggle('toggle-1');
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toHaveLength(1);
    expectReplay(on, await toggle('toggle-1'));
    // Still on after the replay: a new key toggles it off.
    const off = await toggle('toggle-2');
    expect(off.status, off.text).toBe(200);
    expect(off.body.data).toEqual([]);
    expect(await settledViolations([c.ws])).toEqual([]);
  });

  test('the same request spelled differently (member order, spacing) is the same request', async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const first = await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo', description: 'moon' });
    const respelled = await call('POST', c.q('/projects'), {
      token: c.token,
      headers: { 'Idempotency-Key': key, 'content-type': 'application/json' },
      rawBody: `{ "description" : "moon",\n "name": "Apollo", "company_slug": "${c.ws}" }`,
    });
    expectReplay(first, respelled);
  });

  test('a large answer (bulk attach to 100 tasks) is kept compressed and replayed byte for byte', async () => {
    const c = await workspaceClient('idem');
    await c.createProject('Web');
    for (const title of ['Bug', 'Feature', 'Urgent']) await c.createLabel(title);
    const tasks = Array.from({ length: 100 }, (_, i) => `task-with-a-long-identifier-${String(i).padStart(3, '0')}`);
    for (const slug of ['feature', 'urgent']) {
      expect((await c.post(`/projects-labels/${slug}/attach`, { task_uuids: tasks }, { project_slug: 'web' })).status).toBe(200);
    }
    const first = await keyed(c, '/projects-labels/bug/attach', 'bulk', { task_uuids: tasks }, { project_slug: 'web' });
    expect(first.status, first.text).toBe(200);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(8 * 1024);
    expectReplay(first, await keyed(c, '/projects-labels/bug/attach', 'bulk', { task_uuids: tasks }, { project_slug: 'web' }));
    const stored = (await scanTable([c.ws])).find((i) => i.type === ItemType.idempotencyKey && i.workspace === c.ws);
    expect(stored?.body_gz).toBeInstanceOf(Uint8Array);
  });
});

describe('a key used again for something else', () => {
  test('a different body, query or route under the same key is a 422 that changes nothing', async () => {
    const c = await workspaceClient('idem');
    await c.createProject('Web');
    const key = randomUUID();
    expect((await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' })).status).toBe(201);
    // What the stream derives from the writes (counters, history entries) is in place before the snapshot, and after the refusals.
    await streamDrained();
    const before = (await scanTable([c.ws])).filter((i) => i.workspace === c.ws);
    const refusals = [
      await keyed(c, '/projects-labels', key, { title: 'Feature', color: 'FF5733' }),
      await keyed(c, '/projects-labels', key, { title: 'Bug', color: '00FF00' }),
      await keyed(c, '/projects-labels/bug/attach', key, { task_uuid: 't1' }, { project_slug: 'web' }),
      await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Bug' }),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(422);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body).toMatchObject({ code: 'validation_failed', error_code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(refused.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('different request') }]);
    }
    await streamDrained();
    expect((await scanTable([c.ws])).filter((i) => i.workspace === c.ws)).toEqual(before);
  });

  test('keys belong to the token and the workspace: another token or workspace may use the same key', async () => {
    const c = await workspaceClient('idem');
    const other = await workspaceClient('idem');
    const colleague = await tokenFor([c.ws], { username: 'colleague' });
    const key = 'shared-key';
    expect((await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' })).status).toBe(201);
    const theirs = await keyed(c, '/projects-labels', key, { title: 'Feature', color: 'FF5733' }, undefined, colleague);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((await keyed(other, '/projects-labels', key, { title: 'Bug', color: 'FF5733' })).headers.get('idempotent-replayed')).toBeNull();
  });

  test('two tokens given one username never replay each other: the same request under the same key runs for each', async () => {
    const c = await workspaceClient('idem');
    const [first, second] = await Promise.all([1, 2].map(() => tokenFor([c.ws], { username: 'shared-name' })));
    const key = 'one-key';
    const mine = await keyed(c, '/projects', key, { name: 'Mine' }, undefined, first);
    expect(mine.status, mine.text).toBe(201);
    const theirs = await keyed(c, '/projects', key, { name: 'Mine' }, undefined, second);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.slug).not.toBe(mine.body.data.slug);
    // Each token's own retry still replays its own answer.
    expectReplay(mine, await keyed(c, '/projects', key, { name: 'Mine' }, undefined, first));
    expectReplay(theirs, await keyed(c, '/projects', key, { name: 'Mine' }, undefined, second));
  });

  test("a key kept under the owner's username (before keys belonged to tokens) answers nothing: the request runs", async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const body = { title: 'Fresh', color: 'FF5733' };
    const event = { httpMethod: 'POST', resource: '/projects-labels', pathParameters: null, queryStringParameters: { company_slug: c.ws } };
    // As the service once kept it: under the username of the token's owner (workspaceClient's is "tester").
    const kept = { ws: c.ws, owner: 'tester', key, requestId: 'an-earlier-request', fingerprint: fingerprintOf({ event, body }) };
    expect(await claimIdempotencyKey(kept)).toBeUndefined();
    const answer = '{"data":{"id":77,"slug":"kept-before","title":"Legacy","color":"FF5733"}}';
    await keepAnswer(kept, { status: 201, headers: { 'Content-Type': 'application/json' }, body: answer });
    const ran = await keyed(c, '/projects-labels', key, body);
    expect(ran.status, ran.text).toBe(201);
    expect(ran.headers.get('idempotent-replayed')).toBeNull();
    expect(ran.body.data).toMatchObject({ slug: 'fresh', title: 'Fresh' });
  });
});

describe('what is kept and what is not', () => {
  test('a refusal of the request itself (invalid input) is not kept: the corrected request runs under the key', async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const invalid = await keyed(c, '/projects-labels', key, { title: '', color: 'nope' });
    expect(invalid.status).toBe(422);
    const valid = await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' });
    expect(valid.status, valid.text).toBe(201);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  test('an answered problem below 500 is kept: a 409 replays even after its cause is gone', async () => {
    const c = await workspaceClient('idem');
    await c.createLabel('Bug');
    const key = randomUUID();
    const taken = await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' });
    expect(taken.status, taken.text).toBe(409);
    expect((await c.del('/projects-labels/bug')).status).toBe(200);
    expectReplay(taken, await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' }));
    expect((await keyed(c, '/projects-labels', randomUUID(), { title: 'Bug', color: 'FF5733' })).status).toBe(201);
  });

  test('a malformed key is a 422 naming the header, and nothing is created', async () => {
    const c = await workspaceClient('idem');
    for (const key of ['has space', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' });
      expect(res.status, `${JSON.stringify(key)}: ${res.text}`).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    }
    expect((await keyed(c, '/projects-labels', 'x'.repeat(255), { title: 'Bug', color: 'FF5733' })).status).toBe(201);
    expect((await c.get('/projects-labels')).body.data).toHaveLength(1);
  });

  test('the key is ignored on PUT and DELETE (idempotent already)', async () => {
    const c = await workspaceClient('idem');
    await c.createLabel('Bug');
    const put = (color: string) =>
      call('PUT', c.q('/projects-labels/bug'), { token: c.token, headers: { 'Idempotency-Key': 'k' }, body: { color } });
    expect((await put('00FF00')).body.data.color).toBe('00FF00');
    expect((await put('0000FF')).body.data.color).toBe('0000FF');
  });

  test('a record past its day counts as gone even before TTL removes it', async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const first = await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' });
    const record = (await scanTable([c.ws])).find((i) => i.type === ItemType.idempotencyKey && i.workspace === c.ws)!;
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...record, ttl: Math.floor(Date.now() / 1000) - 1 } }));
    expect((await c.del('/projects-labels/bug')).status).toBe(200);
    const afresh = await keyed(c, '/projects-labels', key, { title: 'Bug', color: 'FF5733' });
    expect(afresh.status, afresh.text).toBe(201);
    expect(afresh.headers.get('idempotent-replayed')).toBeNull();
    expect(afresh.body.data.id).not.toBe(first.body.data.id);
  });
});

describe('retries racing the first request', () => {
  test('ten concurrent requests with one key create exactly one project; the others replay or are told to retry', async () => {
    const c = await workspaceClient('idem');
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo' })));
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 409) {
        expect(a.body.error_code).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } else {
        expect(a.text).toBe(ran[0]!.text);
      }
    }
    expect((await projectsOf(c)).map((p) => p.name)).toEqual(['Apollo']);
    expectReplay(ran[0]!, await keyed(c, '/projects', key, { company_slug: c.ws, name: 'Apollo' }));
  });

  // Deterministic interleavings, through the same function the handlers call.
  const request = (ws: string, key: string, requestId: string): IdempotentRequest => ({
    ws,
    owner: 'tester',
    key,
    requestId,
    event: { httpMethod: 'POST', resource: '/projects', pathParameters: null, queryStringParameters: null },
    body: { name: 'x' },
  });
  const answer = (body: string): APIGatewayProxyResult => ({ statusCode: 201, headers: { 'Content-Type': 'application/json' }, body });

  test('while the first still runs, the same key is a 409 with Retry-After; after it, a replay', async () => {
    const ws = `idem-${randomUUID().slice(0, 8)}`;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = idempotent(request(ws, 'k', 'r1'), async () => (await gate, answer('{"first":1}')));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const meanwhile = await idempotent(request(ws, 'k', 'r2'), async () => answer('{"second":1}')).catch((e: unknown) => e);
    expect(meanwhile).toBeInstanceOf(Conflict);
    expect(Number(toProblem(meanwhile).headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    release();
    expect((await first).body).toBe('{"first":1}');
    const replayed = await idempotent(request(ws, 'k', 'r3'), async () => answer('{"third":1}'));
    expect(replayed.body).toBe('{"first":1}');
    expect(replayed.headers?.['Idempotent-Replayed']).toBe('true');
  });

  test('a 5xx frees the key: the retry runs afresh', async () => {
    const ws = `idem-${randomUUID().slice(0, 8)}`;
    await expect(
      idempotent(request(ws, 'k', 'r1'), async () => {
        throw new Busy();
      }),
    ).rejects.toBeInstanceOf(Busy);
    const retried = await idempotent(request(ws, 'k', 'r2'), async () => answer('{"ran":2}'));
    expect(retried.body).toBe('{"ran":2}');
    expect(retried.headers?.['Idempotent-Replayed']).toBeUndefined();
  });

  test('a request that died holding the key frees it when its lease ends', async () => {
    const ws = `idem-${randomUUID().slice(0, 8)}`;
    const fresh = request(ws, 'k', 'r2');
    const done = await idempotent(fresh, async () => answer('{"ran":1}'));
    // Made pending by a holder whose lease ended (as a timed-out function leaves it).
    const record = (await scanTable([ws])).find((i) => i.type === ItemType.idempotencyKey && i.workspace === ws)!;
    expect(record).toMatchObject({ SK: 'KEY', state: 'done', status: 201 });
    const now = Math.floor(Date.now() / 1000);
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...record,
          state: 'pending',
          holder: 'dead',
          locked_until: now - 1,
          status: undefined,
          body: undefined,
          headers: undefined,
        },
      }),
    );
    const taken = await idempotent(request(ws, 'k', 'r3'), async () => answer('{"ran":3}'));
    expect(taken.body).toBe('{"ran":3}');
    expect(done.body).toBe('{"ran":1}');
  });

  test('an answer too large to keep even gzipped frees the key instead', async () => {
    const keyed = { ws: `idem-${randomUUID().slice(0, 8)}`, owner: 'tester', key: 'k', fingerprint: 'f', requestId: 'r1' };
    expect(await claimIdempotencyKey(keyed)).toBeUndefined();
    // 400 KB of random base64: gzip cannot bring it under the 300 KB kept at most.
    await keepAnswer(keyed, { status: 200, headers: {}, body: randomBytes(300 * 1024).toString('base64') });
    expect(await claimIdempotencyKey({ ...keyed, requestId: 'r2' })).toBeUndefined();
    // A kept one replays.
    await keepAnswer({ ...keyed, requestId: 'r2' }, { status: 200, headers: {}, body: 'x'.repeat(100_000) });
    expect(await claimIdempotencyKey({ ...keyed, requestId: 'r3' })).toEqual({ status: 200, headers: {}, body: 'x'.repeat(100_000) });
  });
});
