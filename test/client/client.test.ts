import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { transformSync } from 'esbuild';
import { getEventListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { signedHeaders } from '#webhooks/signing';
import { matchPath } from '#http/route';
import { routes } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { apiUrl, tokenFor, uniqueWorkspace } from '#support/api';
import { type Built, builtClient } from './build.ts';
import { installedPackage, typeCheck } from './pack.ts';
import { nodeBinary, RUNTIMES } from './runtimes.ts';

const runFile = promisify(execFile);

/**
 * The client package (lib/client), built as `npm run build:client` builds it, against this file's local
 * stack: every route called through it, lists walked across pages, each error class from a real answer,
 * retries that never make a create twice, timeouts and aborts, and webhook verification.
 */
let lib: Built;
let ws: string;
let token: string;
/** Every request the client sent: method and path. */
const sent: { method: string; path: string; headers: Headers }[] = [];
const recording: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  sent.push({ method: init?.method ?? 'GET', path: url.pathname, headers: new Headers(init?.headers) });
  return fetch(input, init);
};

let client: any;

beforeAll(async () => {
  lib = await builtClient();
  ws = uniqueWorkspace('client');
  token = await tokenFor(ws);
  client = lib.createClient({ baseUrl: apiUrl(), token, workspace: ws, fetch: recording });
}, 60_000);

describe('every route', () => {
  test('is a method named after it, sent with its method to its path, answering its body (and its etag where tagged)', async () => {
    const created = await client.createProject({ name: 'Client Project', description: 'made by the client' });
    expect(created.data).toMatchObject({ slug: 'client-project', name: 'Client Project' });
    const slug = created.data.slug as string;
    expect((await client.listProjects()).data.map((p: { slug: string }) => p.slug)).toEqual([slug]);
    const got = await client.getProject({ slug });
    expect(got.etag).toMatch(/^(W\/)?"/);
    const updated = await client.updateProject({ slug, description: 'changed' }, { ifMatch: got.etag });
    expect(updated.data.description).toBe('changed');
    await expect(client.updateProject({ slug, description: 'stale' }, { ifMatch: got.etag })).rejects.toBeInstanceOf(
      lib.PreconditionFailedError,
    );
    expect((await client.projectStats({ slug })).data).toMatchObject({ tasks_count: 0 });
    const copy = await client.duplicateProject({ slug });
    const label = (await client.createLabel({ title: 'Client Bug', color: 'FF0000' })).data;
    expect((await client.getLabel({ slug: label.slug })).etag).toBeTruthy();
    await client.updateLabel({ slug: label.slug, color: '00FF00' });
    expect((await client.listLabels()).data).toHaveLength(1);
    expect((await client.attachLabel({ slug: label.slug, project_slug: slug, task_uuid: 't-1' })).data).toHaveLength(1);
    await client.toggleTaskLabel({ slug: label.slug, project_slug: slug, task_uuid: 't-2' });
    expect((await client.labelTasks({ slug: label.slug, project_slug: slug })).data.sort()).toEqual(['t-1', 't-2']);
    expect((await client.projectLabels({ project_slug: slug, task_uuid: 't-1' })).data).toHaveLength(1);
    await client.detachLabel({ slug: label.slug, project_slug: slug, task_uuids: ['t-1', 't-2'] });
    expect((await client.search({ q: 'client' })).data).toBeTypeOf('object');
    const hook = (await client.createWebhook({ url: 'https://hooks.example.com/client', events: ['*'] })).data;
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await client.getWebhook({ id: hook.id })).etag).toBeTruthy();
    await client.updateWebhook({ id: hook.id, description: 'the client' });
    expect((await client.listWebhooks()).data).toHaveLength(1);
    expect((await client.rotateWebhookSecret({ id: hook.id })).data.secret).toMatch(/^whsec_/);
    const ping = (await client.pingWebhook({ id: hook.id })).data;
    const deliveries = (await client.listWebhookDeliveries({ id: hook.id, status: 'failed' })).data;
    expect(deliveries.map((d: { id: string }) => d.id)).toContain(ping.delivery.id);
    expect((await client.getWebhookDelivery({ id: hook.id, delivery_id: ping.delivery.id })).data.attempt_log).toHaveLength(1);
    await client.redeliverWebhookDelivery({ id: hook.id, delivery_id: ping.delivery.id });
    expect((await client.recoverWebhook({ id: hook.id, since: new Date(Date.now() - 60_000).toISOString() })).data).toMatchObject({
      more: false,
    });
    expect((await client.listWebhookEventTypes()).data.map((t: { name: string }) => t.name)).toContain('Project Created');
    expect((await client.listActivities({ from_context: 'company' })).data.length).toBeGreaterThan(0);
    await client.deleteWebhook({ id: hook.id });
    await client.deleteLabel({ slug: label.slug });
    await client.deleteProject({ slug: copy.data.slug });
    expect((await client.deleteProject({ slug })).data).toEqual({ slug, deleted: true });

    // Each route was reached with its own method: had a method and its route disagreed, the call above failed.
    const reached = new Set(
      sent.flatMap((s) => routes.filter((r) => r.method === s.method && matchPath(r.path, s.path) !== null).map((r) => r.name)),
    );
    expect(routes.map((r) => r.name).filter((name) => !reached.has(name))).toEqual([]);
    // A POST carries an Idempotency-Key (one per call); the others none.
    for (const s of sent) expect(s.headers.has('idempotency-key'), `${s.method} ${s.path}`).toBe(s.method === 'POST');
  });

  test('an answer that lost its ETag on the way has etag undefined, and an ifMatch of undefined is refused before anything is sent', async () => {
    const stripping = lib.createClient({
      baseUrl: apiUrl(),
      token,
      workspace: ws,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        const res = await fetch(input, init);
        const headers = new Headers(res.headers);
        headers.delete('etag');
        return new Response(await res.text(), { status: res.status, headers });
      },
    });
    const slug = (await client.createProject({ name: 'Untagged' })).data.slug;
    const { etag } = await stripping.getProject({ slug });
    expect(etag).toBeUndefined();
    const before = sent.length;
    await expect(client.updateProject({ slug, description: 'unguarded' }, { ifMatch: etag })).rejects.toThrow(
      /ifMatch is not an entity tag/,
    );
    expect(sent.length).toBe(before);
    expect((await client.getProject({ slug })).data.description).not.toBe('unguarded');
  });

  test('a parameter the route does not take is refused before anything is sent', async () => {
    const before = sent.length;
    await expect(client.getProject({ slug: 'x', colour: 'red' })).rejects.toThrow(/takes no colour/);
    await expect(client.getProject({})).rejects.toThrow(/slug is required/);
    await expect(client.createProject({ name: 'x', company_slug: undefined, stray: 1 })).rejects.toBeInstanceOf(TypeError);
    expect(sent.length).toBe(before);
  });
});

describe('pages', () => {
  test('awaited: one page; iterated: every item of every page, once, in order', async () => {
    const own = uniqueWorkspace('pages');
    const c = lib.createClient({ baseUrl: apiUrl(), token: await tokenFor(own), workspace: own });
    const titles = Array.from({ length: 23 }, (_, i) => `Label ${String(i).padStart(2, '0')}`);
    for (const title of titles) await c.createLabel({ title, color: 'AABBCC' });
    const first = await c.listLabels({ limit: 5 });
    expect(first.data).toHaveLength(5);
    expect(first.meta.next_cursor).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const label of c.listLabels({ limit: 5 })) all.push(label.title);
    expect(all).toEqual((await c.listLabels({ limit: 100 })).data.map((l: { title: string }) => l.title));
    expect(new Set(all).size).toBe(23);
    // By page number: from that page on, following the cursor.
    const fromThird: string[] = [];
    for await (const label of c.listLabels({ page: 3, per_page: 5 })) fromThird.push(label.title);
    expect(fromThird).toEqual(all.slice(10));
  });
});

describe('errors', () => {
  test('one class per kind of problem, with status, code, detail, requestId and the problem', async () => {
    const missing = await client.getProject({ slug: 'no-such-project' }).catch((e: Error) => e);
    expect(missing).toBeInstanceOf(lib.NotFoundError);
    expect(missing).toBeInstanceOf(lib.ApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) });
    expect(missing.detail).toBe(missing.problem.detail);
    const invalid = await client.createLabel({ title: '', color: 'nope' }).catch((e: Error) => e);
    expect(invalid).toBeInstanceOf(lib.ValidationError);
    expect(invalid.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['color']));
    const stranger = lib.createClient({ baseUrl: apiUrl(), token: 'pls_not_a_token', workspace: ws });
    expect(await stranger.listProjects().catch((e: Error) => e)).toBeInstanceOf(lib.AuthenticationError);
    const elsewhere = await client.listProjects({ company_slug: uniqueWorkspace('other') }).catch((e: Error) => e);
    expect(elsewhere).toBeInstanceOf(lib.PermissionError);
    await client.createLabel({ title: 'Twice', color: '112233' });
    const twice = await client.createLabel({ title: 'Twice', color: '112233' }).catch((e: Error) => e);
    expect(twice).toBeInstanceOf(lib.ConflictError);
    expect(twice.code).toBe('conflict');
  });

  test("a throttled call waits the answer's Retry-After and goes through; with no retries left it is a RateLimitError", async () => {
    const limited = await tokenFor(ws, { limits: { rate: 1, burst: 1 } });
    const attempts: { at: number; status: number; retryAfter: string | null }[] = [];
    const c = lib.createClient({
      baseUrl: apiUrl(),
      token: limited,
      workspace: ws,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        const res = await fetch(input, init);
        attempts.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') });
        return res;
      },
    });
    await c.listLabels(); // the burst
    await c.listLabels(); // refused once, then after Retry-After
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 200]);
    expect(attempts[1]!.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(Number(attempts[1]!.retryAfter) * 1000 - 50);
    const refused = await c.listLabels({}, { maxRetries: 0 }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(lib.RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
  });
});

/** A proxy to the local API that cuts the connection of the first create after the API answered it (the answer is lost). */
async function losingFirstAnswer(): Promise<{ url: string; cut: () => number; server: Server }> {
  let cut = 0;
  const upstream = new URL(apiUrl());
  const server = createServer((req, res) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (req.method === 'POST' && cut++ === 0) return req.socket.destroy();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cut: () => cut, server };
}

describe('retries', () => {
  test('a create whose answer was lost is sent again under the same Idempotency-Key: one project is made', async () => {
    const proxy = await losingFirstAnswer();
    try {
      const own = uniqueWorkspace('lost');
      const keys: string[] = [];
      const c = lib.createClient({
        baseUrl: proxy.url,
        token: await tokenFor(own),
        workspace: own,
        fetch: (input: Parameters<typeof fetch>[0], init: RequestInit) => {
          keys.push(new Headers(init.headers).get('idempotency-key') ?? '');
          return fetch(input, init);
        },
      });
      const made = await c.createProject({ name: 'Made Once' });
      expect(made.data.slug).toBe('made-once');
      expect(proxy.cut()).toBe(2);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect((await c.listProjects()).data.map((p: { slug: string }) => p.slug)).toEqual(['made-once']);
      // Without retries the lost answer is the caller's: a ConnectionError, not an ApiError.
      const lost = await losingFirstAnswer();
      const once = lib.createClient({ baseUrl: lost.url, token: await tokenFor(own), workspace: own, maxRetries: 0 });
      const error = await once.createProject({ name: 'Lost Answer' }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(lib.ConnectionError);
      expect(error).not.toBeInstanceOf(lib.ApiError);
      lost.server.close();
    } finally {
      proxy.server.close();
    }
  });

  test('no answer within timeoutMs is a TimeoutError after the retries; an aborted call an AbortError, not retried', async () => {
    const requests: number[] = [];
    const silent = createServer((req) => {
      requests.push(Date.now());
      req.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const c = lib.createClient({ baseUrl: url, token: 'pls_x', workspace: ws, timeoutMs: 150, maxRetries: 1 });
      const timedOut = await c.listProjects().catch((e: Error) => e);
      expect(timedOut).toBeInstanceOf(lib.TimeoutError);
      expect(requests).toHaveLength(2);
      const controller = new AbortController();
      const pending = c.getProject({ slug: 'x' }, { signal: controller.signal, timeoutMs: 60_000 }).catch((e: Error) => e);
      await expect.poll(() => requests.length).toBe(3);
      controller.abort();
      expect(await pending).toBeInstanceOf(lib.AbortError);
      expect(requests).toHaveLength(3);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

type Scripted = { status: number; headers?: Record<string, string>; body?: unknown; raw?: string };
/**
 * A server that answers from a script, one answer per request (the last repeated), recording when each came
 * and its headers: for answers the local API gives only in a race (a key still in use) or never on demand.
 */
async function scripted(answers: Scripted[]) {
  const requests: { at: number; headers: Record<string, string | string[] | undefined> }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    const answer = answers[Math.min(requests.length, answers.length - 1)]!;
    requests.push({ at: Date.now(), headers: req.headers });
    const problem = answer.status >= 400;
    res.writeHead(answer.status, { 'content-type': problem ? 'application/problem+json' : 'application/json', ...answer.headers });
    res.end(
      answer.raw ?? JSON.stringify(answer.body ?? (problem ? { status: answer.status, code: 'x', detail: 'scripted' } : { data: [] })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => (server.closeAllConnections(), server.close()) };
}
const unavailable = (headers?: Record<string, string>): Scripted => ({
  status: 503,
  headers,
  body: { status: 503, code: 'service_unavailable' },
});

describe('retries, by the answer', () => {
  test("Retry-After as an HTTP date is waited for; one over a minute is not (the caller's error at once); an empty one is a backoff", async () => {
    const inTwo = new Date(Date.now() + 2000).toUTCString();
    const dated = await scripted([unavailable({ 'retry-after': inTwo }), { status: 200 }]);
    const longer = await scripted([unavailable({ 'retry-after': '61' }), { status: 200 }]);
    const empty = await scripted([unavailable({ 'retry-after': '' }), { status: 200 }]);
    try {
      const c = (url: string) => lib.createClient({ baseUrl: url, token: 'pls_x', workspace: ws });
      await c(dated.url).listProjects();
      expect(dated.requests).toHaveLength(2);
      expect(dated.requests[1]!.at).toBeGreaterThanOrEqual(Date.parse(inTwo) - 5); // not before the date (clocks' granularity aside)
      expect(
        await c(longer.url)
          .listProjects()
          .catch((e: Error) => e),
      ).toBeInstanceOf(lib.ServiceUnavailableError);
      expect(longer.requests).toHaveLength(1);
      await c(empty.url).listProjects();
      expect(empty.requests).toHaveLength(2);
      expect(empty.requests[1]!.at - empty.requests[0]!.at).toBeGreaterThanOrEqual(370); // 0.5 s less up to a quarter, not 0
    } finally {
      for (const s of [dated, longer, empty]) s.close();
    }
  });

  test('a POST whose first attempt is still running (409 IDEMPOTENCY_KEY_IN_USE) is retried under the same key; another 409 is not', async () => {
    const inUse: Scripted = {
      status: 409,
      headers: { 'retry-after': '0' },
      body: { status: 409, code: 'conflict', error_code: 'IDEMPOTENCY_KEY_IN_USE', detail: 'still running' },
    };
    const made = { status: 201, body: { data: { slug: 'made' } } };
    const server = await scripted([inUse, inUse, inUse, made]);
    const taken = await scripted([{ status: 409, body: { status: 409, code: 'conflict', error_code: 'CONFLICT', detail: 'taken' } }]);
    try {
      // Asked again after each Retry-After, apart from the call's retries (none here).
      const once = lib.createClient({ baseUrl: server.url, token: 'pls_x', workspace: ws, maxRetries: 0 });
      const created = await once.createProject({ name: 'Made' });
      expect(created.data.slug).toBe('made');
      const keys = server.requests.map((r) => r.headers['idempotency-key']);
      expect(keys).toEqual([expect.any(String), keys[0], keys[0], keys[0]]);
      const c = lib.createClient({ baseUrl: taken.url, token: 'pls_x', workspace: ws });
      const refused = await c.createProject({ name: 'Made' }).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(lib.ConflictError);
      expect(taken.requests).toHaveLength(1);
      // The error carries the call's key: the way to ask for the first attempt's answer again.
      expect(refused.idempotencyKey).toBe(taken.requests[0]!.headers['idempotency-key']);
    } finally {
      server.close();
      taken.close();
    }
  });

  test('an abort during the backoff ends the call with an AbortError, and nothing more is sent', async () => {
    const server = await scripted([unavailable()]);
    try {
      const controller = new AbortController();
      const c = lib.createClient({ baseUrl: server.url, token: 'pls_x', workspace: ws, maxRetries: 5 });
      const pending = c.listProjects({}, { signal: controller.signal }).catch((e: Error) => e);
      await expect.poll(() => server.requests.length).toBe(1);
      controller.abort();
      expect(await pending).toBeInstanceOf(lib.AbortError);
      expect(server.requests).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  test('a list whose first page failed is asked again when awaited again', async () => {
    const server = await scripted([unavailable(), { status: 200, body: { data: [{ slug: 'p' }], meta: { next_cursor: null } } }]);
    try {
      const page = lib.createClient({ baseUrl: server.url, token: 'pls_x', workspace: ws, maxRetries: 0 }).listProjects();
      expect(await page.then(undefined, (e: Error) => e)).toBeInstanceOf(lib.ServiceUnavailableError);
      expect((await page).data).toEqual([{ slug: 'p' }]);
      expect(server.requests).toHaveLength(2);
    } finally {
      server.close();
    }
  });
});

describe('the second pass: nothing hidden from the caller', () => {
  test('every error of a keyed call carries its Idempotency-Key: a lost answer, a timeout, an abort; sent again with it, one project', async () => {
    const own = uniqueWorkspace('lost-key');
    const ownToken = await tokenFor(own);
    // The first POST goes through and its answer is dropped; every later attempt is dropped before it leaves.
    let posts = 0;
    const dropping = lib.createClient({
      baseUrl: apiUrl(),
      token: ownToken,
      workspace: own,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        if (init.method !== 'POST') return fetch(input, init);
        if (posts++ === 0) await fetch(input, init);
        throw new TypeError('fetch failed');
      },
    });
    const lost = await dropping.createProject({ name: 'Made Once Only' }).catch((e: Error) => e);
    expect(lost).toBeInstanceOf(lib.ConnectionError);
    expect(lost.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    // The recovery docs/client.md gives: the same call with the error's key answers the first attempt's answer.
    const plain = lib.createClient({ baseUrl: apiUrl(), token: ownToken, workspace: own });
    const again = await plain.createProject({ name: 'Made Once Only' }, { idempotencyKey: lost.idempotencyKey }).withResponse();
    expect(again.response.replayed).toBe(true);
    expect(again.data.data.slug).toBe('made-once-only');
    expect((await plain.listProjects()).data.map((p: { slug: string }) => p.slug)).toEqual(['made-once-only']);
    // A timeout and an abort carry theirs too.
    const silent = createServer((req) => req.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const c = lib.createClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, token: 'pls_x', workspace: own });
      const timedOut = await c.createLabel({ title: 'T', color: '000000' }, { timeoutMs: 50, maxRetries: 0 }).catch((e: Error) => e);
      expect(timedOut).toBeInstanceOf(lib.TimeoutError);
      expect(timedOut.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      const controller = new AbortController();
      const pending = c
        .createLabel({ title: 'A', color: '000000' }, { signal: controller.signal, idempotencyKey: 'mine-1' })
        .catch((e: Error) => e);
      setTimeout(() => controller.abort(), 20);
      const aborted = await pending;
      expect(aborted).toBeInstanceOf(lib.AbortError);
      expect(aborted.idempotencyKey).toBe('mine-1');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  test("a success that is not the API's JSON (a captive portal) is an UnexpectedResponseError, never a value; for await throws it too", async () => {
    const portal = await scripted([
      { status: 200, headers: { 'content-type': 'text/html', 'x-request-id': 'r-1' }, raw: '<html>Sign in</html>' },
    ]);
    try {
      const c = lib.createClient({ baseUrl: portal.url, token: 'pls_x', workspace: ws, maxRetries: 0 });
      const error = await c.getProject({ slug: 'x' }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(lib.UnexpectedResponseError);
      expect(error).toMatchObject({ status: 200, contentType: 'text/html', requestId: 'r-1' });
      const iterated = await (async () => {
        for await (const _ of c.listProjects()) return 'an item';
        return 'nothing';
      })().catch((e: Error) => e);
      expect(iterated).toBeInstanceOf(lib.UnexpectedResponseError);
    } finally {
      portal.close();
    }
  });

  test('errors keep their headers and a parsed retryAfter; withResponse gives the request id; every attempt names the package; onRetry hears each wait, onAttempt each attempt', async () => {
    const server = await scripted([
      unavailable({ 'retry-after': '0' }),
      { status: 200, headers: { 'x-request-id': 'r-ok' }, body: { data: { slug: 'p' } } },
      {
        status: 429,
        headers: { 'retry-after': '120', 'x-request-id': 'r-429' },
        body: { status: 429, code: 'rate_limited', detail: 'slow down' },
      },
    ]);
    try {
      const retries: { attempt: number; status?: number }[] = [];
      const attempts: { attempt: number; status?: number; requestId?: string; durationMs: number }[] = [];
      const c = lib.createClient({
        baseUrl: server.url,
        token: 'pls_x',
        workspace: ws,
        onRetry: (i: { attempt: number; status?: number }) => retries.push(i),
        onAttempt: (i: { attempt: number; status?: number; requestId?: string; durationMs: number }) => attempts.push(i),
      });
      const { data, response } = await c.getProject({ slug: 'p' }).withResponse();
      expect(data.data.slug).toBe('p');
      expect(response).toMatchObject({ status: 200, requestId: 'r-ok', replayed: false });
      expect(retries).toEqual([expect.objectContaining({ attempt: 1, status: 503, waitMs: 0 })]);
      const limited = await c.getProject({ slug: 'p' }).catch((e: Error) => e);
      expect(limited).toBeInstanceOf(lib.RateLimitError);
      expect(limited.retryAfter).toBe(120);
      expect(limited.headers.get('x-request-id')).toBe('r-429');
      expect(limited.code).toBe('rate_limited');
      // onAttempt hears every attempt, the failed ones and the last.
      expect(attempts.map(({ attempt, status, requestId }) => ({ attempt, status, requestId }))).toEqual([
        { attempt: 1, status: 503, requestId: undefined },
        { attempt: 2, status: 200, requestId: 'r-ok' },
        { attempt: 1, status: 429, requestId: 'r-429' },
      ]);
      expect(attempts.every((a) => a.durationMs >= 0)).toBe(true);
      expect(server.requests.every((r) => /^project-label-service-client\/\d+\.\d+\.\d+$/.test(String(r.headers['user-agent'])))).toBe(
        true,
      );
      // A misspelt option is refused before anything is sent (an `ifmatch` would have written unguarded).
      await expect(c.updateProject({ slug: 'p', name: 'x' }, { ifmatch: '"x"' })).rejects.toThrow(/ifmatch: not an option of a call/);
    } finally {
      server.close();
    }
  });

  test('a list is a real Promise (finally) with iterPages; a conditional read answers notModified as a value; no randomUUID needed', async () => {
    const own = uniqueWorkspace('pages2');
    const c = lib.createClient({ baseUrl: apiUrl(), token: await tokenFor(own), workspace: own });
    for (const name of ['Page A', 'Page B', 'Page C']) await c.createProject({ name });
    const listed = c.listProjects({ limit: 2 });
    expect(listed).toBeInstanceOf(Promise);
    let settled = false;
    expect((await listed.finally(() => (settled = true))).data).toHaveLength(2);
    expect(settled).toBe(true);
    const pages: number[] = [];
    for await (const page of c.listProjects({ limit: 2 }).iterPages()) pages.push(page.data.length);
    expect(pages).toEqual([2, 1]);
    const { etag } = await c.getProject({ slug: 'page-a' });
    expect(await c.getProject({ slug: 'page-a' }, { ifNoneMatch: etag })).toEqual({ notModified: true, etag });
    expect((await c.getProject({ slug: 'page-a' }, { ifNoneMatch: '"other"' })).data.slug).toBe('page-a');
    // The history oldest first ends its iteration once caught up (its token never null), and a 304 ends it too.
    await expect.poll(async () => (await c.listActivities({ from_context: 'company' })).data.length, { timeout: 10_000 }).toBe(3);
    const seen: string[] = [];
    for await (const entry of c.listActivities({ from_context: 'company', order: 'asc', limit: 2 })) seen.push(entry.project_slug);
    expect(seen).toEqual(['page-a', 'page-b', 'page-c']);
    // Where crypto.randomUUID is missing (a page on plain http), a POST still gets a key of its shape.
    const keyedToken = await tokenFor(own);
    const original = globalThis.crypto.randomUUID;
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const keys: string[] = [];
      const keyed = lib.createClient({
        baseUrl: apiUrl(),
        token: keyedToken,
        workspace: own,
        fetch: (input: Parameters<typeof fetch>[0], init: RequestInit) => {
          keys.push(new Headers(init.headers).get('idempotency-key') ?? '');
          return fetch(input, init);
        },
      });
      expect((await keyed.createLabel({ title: 'No UUID', color: '123456' })).data.slug).toBe('no-uuid');
      expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: original, configurable: true });
    }
  });
});

describe('followActivities', () => {
  /** A client of a workspace of its own whose every read of the history is recorded: its status and If-None-Match. */
  async function following(prefix: string, hold?: () => boolean) {
    const own = uniqueWorkspace(prefix);
    const reads: { status: number; ifNoneMatch: string | null }[] = [];
    const held: string[] = [];
    const c = lib.createClient({
      baseUrl: apiUrl(),
      token: await tokenFor(own),
      workspace: own,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        const history = new URL(String(input)).pathname === '/activities';
        if (history && hold?.()) {
          held.push(String(input));
          // As fetch does with a signal: nothing until it aborts, then its reason.
          return new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
        }
        const res = await fetch(input, init);
        if (history) reads.push({ status: res.status, ifNoneMatch: new Headers(init.headers).get('if-none-match') });
        return res;
      },
    });
    return { c, reads, held };
  }

  test('catches up oldest first by the sync token, polls with If-None-Match (304s) while caught up, then yields each new entry once', async () => {
    const { c, reads } = await following('follow');
    await c.createProject({ name: 'Followed' });
    const soon = { timeout: 10_000 };
    const controller = new AbortController();
    const seen: { type: string; id: string }[] = [];
    const follower = c.followActivities({ from_context: 'company' }, { signal: controller.signal, pollMs: 50 });
    expect(follower.token).toBeUndefined();
    const done = (async () => {
      for await (const entry of follower) {
        seen.push({ type: entry.type, id: entry.id });
        if (seen.length === 3) controller.abort();
      }
    })();
    done.catch(() => {}); // awaited below; a failed assertion ends the follower in `finally` instead
    try {
      await expect.poll(() => seen.length, soon).toBe(1);
      await expect.poll(() => reads.filter((r) => r.status === 304).length, soon).toBeGreaterThanOrEqual(3);
      // Caught up, the same token is asked again with the last answer's tag: nothing new is a 304, and costs no page.
      const last = reads.slice(-3);
      expect(last).toEqual(last.map(() => ({ status: 304, ifNoneMatch: expect.any(String) })));
      expect(follower.token).toMatch(/^[A-Za-z0-9_-]+\.0$/);
      // Its waits leave no listener behind on the caller's signal (one at most: the wait under way).
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      await c.updateProject({ slug: 'followed', description: 'changed while followed' });
      await expect.poll(() => seen.length, soon).toBe(2);
      await c.createLabel({ title: 'Followed Label', color: '123456' });
      await done;
    } finally {
      controller.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(['Project Created', 'Project Updated', 'Label Created']);
    expect(new Set(seen.map((e) => e.id)).size).toBe(3);
  });

  test('a follower stopped mid-page goes on, from the token it gave, with the entries it had not yielded: none twice, none missed', async () => {
    const { c } = await following('follow-resume');
    for (const name of ['Resumed A', 'Resumed B', 'Resumed C', 'Resumed D', 'Resumed E']) await c.createProject({ name });
    await expect.poll(async () => (await c.listActivities({ from_context: 'company' })).data.length, { timeout: 10_000 }).toBe(5);
    const run = async (from: string | undefined, stopAfter: number) => {
      const controller = new AbortController();
      const seen: string[] = [];
      const follower = c.followActivities(
        { from_context: 'company' },
        { signal: controller.signal, pollMs: 50, limit: 2, ...(from ? { from } : {}) },
      );
      for await (const entry of follower) {
        seen.push(entry.project_slug!);
        if (seen.length === stopAfter) controller.abort();
      }
      return { seen, token: follower.token };
    };
    // Three lives, each stopped after the entry its caller handled last, each started from the token it stored.
    const first = await run(undefined, 1);
    const second = await run(first.token, 3);
    const third = await run(second.token, 1);
    expect([...first.seen, ...second.seen, ...third.seen]).toEqual(['resumed-a', 'resumed-b', 'resumed-c', 'resumed-d', 'resumed-e']);
    await expect(c.followActivities({ from_context: 'company' }, { from: 'not a token' })[Symbol.asyncIterator]().next()).rejects.toThrow(
      /from must be a token a follower gave/,
    );
  });

  test('an outage does not end it: failed reads are tried again after growing waits, and it goes on where it was', async () => {
    let down = false;
    const own = uniqueWorkspace('follow-outage');
    const retries: number[] = [];
    const c = lib.createClient({
      baseUrl: apiUrl(),
      token: await tokenFor(own),
      workspace: own,
      maxRetries: 0,
      fetch: async (input: Parameters<typeof fetch>[0], init: RequestInit) => {
        if (down && new URL(String(input)).pathname === '/activities') throw new TypeError('fetch failed');
        return fetch(input, init);
      },
    });
    await c.createProject({ name: 'Outage' });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      const options = { signal: controller.signal, pollMs: 20, maxBackoffMs: 100, onRetry: (_: Error, ms: number) => retries.push(ms) };
      for await (const entry of c.followActivities({ from_context: 'company' }, options)) {
        seen.push(entry.type);
        if (seen.length === 2) controller.abort();
      }
    })();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    down = true;
    await expect.poll(() => retries.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    await c.updateProject({ slug: 'outage', name: 'After the outage' });
    down = false;
    await done;
    expect(seen).toEqual(['Project Created', 'Project Updated']);
    // Growing, to its cap (each wait is jittered: between half and all of its step).
    expect(Math.max(...retries)).toBeLessThanOrEqual(100);
    expect(retries[0]).toBeLessThanOrEqual(20);
  });

  test('an abort while its consumer handles an entry yields no more of the page; a limit over 100 is refused', async () => {
    const { c } = await following('follow-mid-page');
    for (const name of ['Mid A', 'Mid B', 'Mid C']) await c.createProject({ name });
    await expect.poll(async () => (await c.listActivities({ from_context: 'company' })).data.length, { timeout: 10_000 }).toBe(3);
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const entry of c.followActivities({ from_context: 'company' }, { signal: controller.signal })) {
      seen.push(entry.id);
      controller.abort(); // two more on the page it read
    }
    expect(seen).toHaveLength(1);
    const tooMany = c.followActivities({ from_context: 'company' }, { limit: 101 })[Symbol.asyncIterator]().next();
    await expect(tooMany).rejects.toThrow(/limit must be a whole number from 1 to 100/);
  });

  test('an abort while a read is in flight ends the iteration without an error', async () => {
    let hold = false;
    const { c, held } = await following('follow-abort', () => hold);
    await c.createProject({ name: 'Aborted Follow' });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const entry of c.followActivities({ from_context: 'company' }, { signal: controller.signal, pollMs: 50 }))
        seen.push(entry.id);
    })();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    hold = true;
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    controller.abort();
    await expect(done).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const body = JSON.stringify({ type: 'Project Created', timestamp: '2026-01-01T00:00:00.000Z', data: { event_id: 'e-1' } });
  const now = () => Math.floor(Date.now() / 1000);

  test('accepts what the service signs (one good signature among several), as the Standard Webhooks library does', async () => {
    const other = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const headers = signedHeaders([other, secret], 'msg_1', now(), body);
    new Webhook(secret).verify(body, headers);
    const event = await lib.verifyWebhook(secret, body, headers);
    expect(event).toMatchObject({ type: 'Project Created', data: { event_id: 'e-1' } });
    expect(await lib.verifyWebhook(secret, new TextEncoder().encode(body), new Headers(headers))).toEqual(event);
  });

  test('refuses an edited body, id or timestamp, a wrong secret, a stale or future timestamp, missing headers', async () => {
    const headers = signedHeaders([secret], 'msg_1', now(), body);
    const refused = async (b: string, h: Record<string, string>, s = secret) =>
      expect(lib.verifyWebhook(s, b, h)).rejects.toBeInstanceOf(lib.WebhookVerificationError);
    await refused(body.replace('e-1', 'e-2'), headers);
    await refused(body, { ...headers, 'webhook-id': 'msg_2' });
    await refused(body, { ...headers, 'webhook-timestamp': String(now() + 1) });
    await refused(body, headers, `whsec_${Buffer.alloc(32, 4).toString('base64')}`);
    await refused(body, signedHeaders([secret], 'msg_1', now() - 301, body));
    await refused(body, signedHeaders([secret], 'msg_1', now() + 301, body));
    await refused(body, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now()) });
    await refused(body, { ...headers, 'webhook-signature': 'v2,abc v1,' });
    await refused('not json', signedHeaders([secret], 'msg_1', now(), 'not json'));
  });

  test('one HMAC per call: 2,000 signatures are refused before any is checked; any body type; a settable tolerance', async () => {
    const big = JSON.stringify({
      type: 'Project Created',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { event_id: 'e-1', pad: 'x'.repeat(1_000_000) },
    });
    const headers = signedHeaders([secret], 'msg_1', now(), big);
    const flood = {
      ...headers,
      'webhook-signature': `${Array.from({ length: 2000 }, () => 'v1,AA==').join(' ')} ${headers['webhook-signature']}`,
    };
    const started = performance.now();
    const error = await lib.verifyWebhook(secret, big, flood).catch((e: Error) => e);
    const floodMs = performance.now() - started;
    expect(error).toBeInstanceOf(lib.WebhookVerificationError);
    expect(error.message).toMatch(/2001 signatures; at most 8/);
    console.log(`verifyWebhook: 2,000 signatures and a 1 MB body refused in ${floodMs.toFixed(1)} ms`);
    // Candidates of the wrong length are no signatures; the good one among them verifies.
    const padded = { ...headers, 'webhook-signature': `v1,AA== v1,${Buffer.alloc(31).toString('base64')} ${headers['webhook-signature']}` };
    const bytes = new TextEncoder().encode(big);
    for (const raw of [big, bytes, Buffer.from(big), bytes.buffer])
      expect((await lib.verifyWebhook(secret, raw, padded)).type).toBe('Project Created');
    const old = signedHeaders([secret], 'msg_1', now() - 600, body);
    await expect(lib.verifyWebhook(secret, body, old)).rejects.toThrow(/more than 300 seconds off/);
    expect((await lib.verifyWebhook(secret, body, old, { toleranceSeconds: 900 })).type).toBe('Project Created');
  });

  test('a verified delivery of a type newer than the client is an UnknownWebhookEventError carrying the event', async () => {
    const newer = JSON.stringify({ type: 'Sprint Started', timestamp: '2026-01-01T00:00:00.000Z', data: { event_id: 'e-9' } });
    const error = await lib.verifyWebhook(secret, newer, signedHeaders([secret], 'msg_9', now(), newer)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(lib.UnknownWebhookEventError);
    // Authentic: a receiver that refuses what does not verify does not refuse it.
    expect(error).not.toBeInstanceOf(lib.WebhookVerificationError);
    expect(error.event).toMatchObject({ type: 'Sprint Started', data: { event_id: 'e-9' } });
    expect(lib.WEBHOOK_EVENT_TYPES).toContain('Project Created');
  });
});

/** The ```ts blocks of a page (under `heading`, when given), in order. */
function tsBlocks(file: string, heading?: string): string[] {
  let page = readFileSync(join(repoRoot, file), 'utf8');
  if (heading) page = page.slice(page.indexOf(heading), page.indexOf('\n## ', page.indexOf(heading) + heading.length));
  return [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('the package', () => {
  let dir: string;
  let tarball: string;
  beforeAll(() => {
    ({ dir, tarball } = installedPackage());
  }, 60_000);

  test.concurrent.each(['20', ...RUNTIMES])(
    'on Node %s: import and require both load it, call the API and verify a delivery',
    async (version) => {
      const node = version === '20' ? process.execPath : await nodeBinary(version as (typeof RUNTIMES)[number]);
      const script = `import { createRequire } from 'node:module';
import { createClient, verifyWebhook } from '@project-label-service/client';
const required = createRequire(import.meta.url)('@project-label-service/client');
const options = { baseUrl: process.env.API, token: process.env.TOKEN, workspace: process.env.WS };
const { data: made } = await createClient(options).createProject({ name: process.env.NAME });
const { data: read } = await required.createClient(options).getProject({ slug: made.slug });
const event = await required.verifyWebhook(process.env.SECRET, process.env.BODY, new Headers(JSON.parse(process.env.HEADERS)));
const edited = await verifyWebhook(process.env.SECRET, process.env.BODY + ' ', new Headers(JSON.parse(process.env.HEADERS))).then(() => 'verified', (e) => e.name);
console.log(JSON.stringify({ node: process.version, slug: read.slug, type: event.type, edited }));`;
      writeFileSync(join(dir, `runtime-${version}.mjs`), script);
      const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
      const body = JSON.stringify({ type: 'Project Created', timestamp: new Date().toISOString(), data: { data: { slug: 'x' } } });
      const headers = signedHeaders([secret], 'msg_runtime', Math.floor(Date.now() / 1000), body);
      const env = {
        ...process.env,
        API: apiUrl(),
        TOKEN: token,
        WS: ws,
        NAME: `On Node ${version}`,
        SECRET: secret,
        BODY: body,
        HEADERS: JSON.stringify(headers),
      };
      const out = JSON.parse((await runFile(node, [`runtime-${version}.mjs`], { cwd: dir, env })).stdout);
      expect(out).toEqual({
        node: version === '20' ? process.version : `v${version}`,
        slug: `on-node-${version.replaceAll('.', '-')}`,
        type: 'Project Created',
        edited: 'WebhookVerificationError',
      });
    },
    60_000,
  );

  test("the examples of docs/client.md, the README and the package's README compile for a strict consumer and run as written, against the local stack", async () => {
    const blocks = [...tsBlocks('README.md', '## TypeScript client'), ...tsBlocks('lib/client/README.md'), ...tsBlocks('docs/client.md')];
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const sources = Object.fromEntries(blocks.map((block, i) => [`example${i}.ts`, block]));
    expect(typeCheck(dir, sources, { node: true })).toBe('');
    const env = {
      ...process.env,
      API: apiUrl(),
      TOKEN: token,
      WORKSPACE: ws,
      WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 5).toString('base64')}`,
    };
    for (const [i, block] of blocks.entries()) {
      // Its types stripped, as tsx or node --experimental-strip-types runs it.
      writeFileSync(join(dir, `example${i}.mjs`), transformSync(block, { loader: 'ts', format: 'esm' }).code);
      execFileSync(process.execPath, [`example${i}.mjs`], { cwd: dir, env, stdio: 'pipe' });
    }
    // The webhook handler example, handed a delivery the service signs, and an edited one.
    const handlerFile = blocks.findIndex((b) => b.includes('export async function handle'));
    process.env.WEBHOOK_SECRET = env.WEBHOOK_SECRET;
    try {
      const { handle } = await import(pathToFileURL(join(dir, `example${handlerFile}.mjs`)).href);
      const body = JSON.stringify({ type: 'Project Created', timestamp: new Date().toISOString(), data: { data: { slug: 'x' } } });
      const headers = signedHeaders([env.WEBHOOK_SECRET], 'msg_1', Math.floor(Date.now() / 1000), body);
      expect((await handle(new Request('http://x/', { method: 'POST', body, headers }))).status).toBe(204);
      expect((await handle(new Request('http://x/', { method: 'POST', body: `${body} `, headers }))).status).toBe(400);
    } finally {
      delete process.env.WEBHOOK_SECRET;
    }
  });

  test('packed and installed offline into an empty folder: plain Node imports and requires it and calls the API; README, LICENSE and maps in it; under 15 kB gzipped', async () => {
    expect(statSync(tarball).size).toBeGreaterThan(0);
    const js = readFileSync(join(dir, 'node_modules', '@project-label-service', 'client', 'dist', 'index.js'));
    expect(gzipSync(js).length).toBeLessThanOrEqual(15 * 1024);
    const script = `import { createClient } from '@project-label-service/client';
const client = createClient({ baseUrl: process.env.API, token: process.env.TOKEN, workspace: process.env.WS });
const { data } = await client.createProject({ name: 'From Plain Node' });
console.log(data.slug);`;
    writeFileSync(join(dir, 'plain.mjs'), script);
    const out = execFileSync(process.execPath, ['plain.mjs'], { cwd: dir, env: { ...process.env, API: apiUrl(), TOKEN: token, WS: ws } });
    expect(out.toString().trim()).toBe('from-plain-node');
    // require() finds the CommonJS build; the tarball carries the README, the LICENSE and the source maps.
    writeFileSync(
      join(dir, 'plain.cjs'),
      "const { createClient, ApiError } = require('@project-label-service/client');\nconsole.log(typeof createClient, typeof ApiError);\n",
    );
    expect(execFileSync(process.execPath, ['plain.cjs'], { cwd: dir }).toString().trim()).toBe('function function');
    const packed = execFileSync('tar', ['-tzf', tarball]).toString();
    for (const file of [
      'package/README.md',
      'package/LICENSE',
      'package/dist/index.cjs',
      'package/dist/index.js.map',
      'package/dist/index.cjs.map',
    ])
      expect(packed).toContain(file);

    // A strict TypeScript consumer checks against its declarations; a wrong field or type does not.
    const good = `import { createClient, verifyWebhook, NotFoundError, type Label, type WebhookEvent } from '@project-label-service/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:3000', token: 'pls_x', workspace: 'acme-corp' });
export async function use(raw: string, headers: Headers): Promise<string[]> {
  const names: string[] = [];
  const { data, etag } = await client.getProject({ slug: 'website' });
  if (etag) await client.updateProject({ slug: data.slug, description: 'new' }, { ifMatch: etag });
  // Optional members take undefined (absent), as a strict consumer's maybe-values are.
  const maybe = Math.random() > 2 ? 5 : undefined;
  await client.listProjects({ limit: maybe, cursor: undefined }, { timeoutMs: maybe });
  const read = await client.getProject({ slug: 'website' }, { ifNoneMatch: etag ?? '*' });
  if ('notModified' in read) names.push(String(read.etag));
  else names.push(read.data.slug);
  const { response } = await client.createLabel({ title: 'T', color: '000000' }).withResponse();
  names.push(String(response.requestId), String(response.replayed));
  for await (const page of client.listProjects({ limit: 10 }).iterPages()) names.push(String(page.data.length));
  // An attach answers by the tasks it names: one task's labels, each task's, or the project's.
  const mine: Label[] = (await client.attachLabel({ slug: 'bug', project_slug: data.slug, task_uuid: 't-1' })).data;
  const each = (await client.attachLabel({ slug: 'bug', project_slug: data.slug, task_uuids: ['t-1', 't-2'] })).data;
  names.push(...mine.map((l) => l.slug), ...each.map((t) => t.task_uuid));
  // A label list's answer follows the parameters given: the workspace's labels whole, a project's with their counts, a page.
  const all = await client.listLabels();
  names.push(...all.data.map((l) => l.title), String(all.meta.limit));
  const counted: number[] = (await client.listLabels({ project_slug: data.slug })).data.map((l) => l.tasks_count);
  const paged = await client.projectLabels({ project_slug: data.slug, limit: 10 });
  const next: string | null = paged.meta.next_cursor;
  for await (const label of client.listLabels({ project_slug: data.slug })) counted.push(label.tasks_count);
  names.push(String(counted.length), String(next));
  for await (const project of client.listProjects({ limit: 50 })) names.push(project.name);
  const page = await client.listWebhooks();
  names.push(...page.data.map((w) => w.url), String(page.meta.next_cursor));
  const event: WebhookEvent = await verifyWebhook('whsec_x', raw, headers);
  if (event.type === 'Project Created') names.push(event.data.data.slug);
  if (event.type === 'Webhook Failing') names.push(event.data.data.host);
  try { await client.deleteLabel({ slug: 'gone' }); } catch (e) { if (e instanceof NotFoundError) names.push(e.code); }
  return names;
}
`;
    const wrong: Record<string, [string, RegExp]> = {
      'typo.ts': [`client.createProject({ nme: 'Typo' })`, /nme/],
      'type.ts': [`client.getProject({ slug: 42 })`, /number/],
      'missing.ts': [`client.getProject()`, /TS2554/],
      'enum.ts': [`client.listProjects({ status: 'done' })`, /"done"/],
      'route.ts': [`client.getProjects()`, /getProjects/],
      // A problem's code is the union of the catalogue's codes: a code that is none of them is no comparison.
      'code.ts': [`(null as unknown as import('@project-label-service/client').ApiError).code === 'not_a_code'`, /TS2367/],
      'option.ts': [`client.getProject({ slug: 'x' }, { ifmatch: '"x"' })`, /ifmatch/],
      'events.ts': [`client.createWebhook({ url: 'https://hooks.example.com/x', events: ['Project Craeted'] })`, /Project Craeted/],
      // The labels of the workspace, or of a task, carry no tasks_count (a project's do); a list's misspelt parameter is refused.
      'chosen.ts': [`client.listLabels().then((a) => a.data.map((l) => l.tasks_count))`, /tasks_count/],
      'task.ts': [`client.listLabels({ project_slug: 'p', task_uuid: 't' }).then((a) => a.data.map((l) => l.tasks_count))`, /tasks_count/],
      'whole.ts': [`client.listLabels({ project_slug: 'p' }).then((a) => a.meta.current_page)`, /current_page/],
      'limt.ts': [`client.listLabels({ project_slug: 'p', limt: 5 })`, /limt/],
      'attach.ts': [
        `client.attachLabel({ slug: 'b', project_slug: 'p', task_uuid: 't' }).then((a) => a.data.map((l) => l.task_uuid))`,
        /task_uuid/,
      ],
      // One task or several, never both (the API answers 422).
      'both.ts': [`client.attachLabel({ slug: 'bug', project_slug: 'p', task_uuid: 't-1', task_uuids: ['t-2'] })`, /task_uuids/],
    };
    const prelude = `import { createClient } from '@project-label-service/client';\nconst client = createClient({ baseUrl: 'x', token: 'y' });\n`;
    // One compiler run for all of them: each file's errors are its own lines.
    const errors = typeCheck(dir, {
      'good.ts': good,
      ...Object.fromEntries(Object.entries(wrong).map(([name, [line]]) => [name, `${prelude}export const p = ${line};\n`])),
    }).split('\n');
    expect(errors.filter((e) => e.startsWith('good.ts(')).join('\n')).toBe('');
    for (const [name, [, message]] of Object.entries(wrong)) {
      const own = errors.filter((e) => e.startsWith(`${name}(3,`));
      expect(own.join('\n'), name).toMatch(message);
    }
  });
});
