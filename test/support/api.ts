import { localStack } from './stack.ts';
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';

import { SCOPES, type Scope } from '#domain/scopes';
import { createToken, MAX_RATE_LIMIT, type RateLimit } from '#domain/tokens';
import { checkAnswer } from './openapi';

export const apiUrl = () => process.env.API_URL || localStack().apiUrl;

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another local API than the test run's (e.g. one a test started itself). */
  base?: string;
  /**
   * A 429 is waited out as its Retry-After says and the request sent again, as a client does ('wait', the
   * default: a route's own limit, docs/operations.md, is met by suites that poll or page), or answered.
   */
  tooMany?: 'wait' | 'answer';
}

/** How often a suite's request waits out a 429 before the 429 is its answer. */
const WAITS_FOR_LIMITS = 30;

/** One HTTP request to the local API; JSON in, JSON (or problem+json) out. */
export async function call(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  let res = await send(method, `${opts.base ?? apiUrl()}${path}`, headers, body);
  for (let waits = 0; res.status === 429 && opts.tooMany !== 'answer' && waits < WAITS_FOR_LIMITS; waits++) {
    checkAnswer(method, path, res.status, res.headers.get('content-type'), res.text, res.headers);
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    res = await send(method, `${opts.base ?? apiUrl()}${path}`, headers, body);
  }
  const text = res.text;
  // Every answer a suite gets is checked against openapi.json: the document cannot drift from the code.
  checkAnswer(method, path, res.status, res.headers.get('content-type'), text, res.headers);
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as any, text };
}

/**
 * The worker's connections to the APIs (a local one, or a deployed one over HTTPS), kept open as fetch keeps them,
 * and let go a second before the server's Keep-Alive `timeout=` says it closes them, as fetch does. Node's agent
 * reads that hint only when it has a timeout of its own (the longer one loses): without one it kept an idle
 * connection until the server closed it, and a POST sent on it just then failed with "socket hang up" (a local
 * API closes one after 65 s idle; a worker's agent lives as long as the run).
 */
const AGENT = { keepAlive: true, timeout: 300_000 };
const clients = {
  'http:': { request: http.request, agent: new http.Agent(AGENT) },
  'https:': { request: https.request, agent: new https.Agent(AGENT) },
} as const;
/** Methods a request may be sent again with when its kept-open connection turns out closed. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** What fetch adds to every request it sends (Node 20), and to a text body without a type of its own. */
const FETCH_HEADERS = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};
const FETCH_TEXT_TYPE = 'text/plain;charset=UTF-8';

/**
 * One request as fetch sends it (the same URL parsing, header normalization, default headers and body
 * framing; the answer decoded as fetch's text() decodes it), through node:http: fetch costs a test
 * worker about twice the CPU time a request (2.0-2.9 ms against 0.9-1.2 ms, measured against a local
 * API), and the tests send tens of thousands. An idempotent request that finds its kept-open
 * connection closed by the server is sent again once, on a new one.
 */
function send(method: string, url: string, given: Record<string, string>, body: string | undefined) {
  const headers = new Headers(FETCH_HEADERS);
  for (const [name, value] of Object.entries(given)) headers.set(name, value);
  if (body !== undefined) {
    if (!headers.has('content-type')) headers.set('content-type', FETCH_TEXT_TYPE);
    headers.set('content-length', String(Buffer.byteLength(body)));
  }
  const target = new URL(url);
  const client = clients[target.protocol as keyof typeof clients];
  if (!client) throw new TypeError(`fetch failed: ${target.protocol} is not http or https`);
  const attempt = (retried: boolean): Promise<{ status: number; headers: Headers; text: string }> =>
    new Promise((resolve, reject) => {
      const req = client.request(target, { method, headers: Object.fromEntries(headers), agent: client.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          // Every header line as sent (a repeated one joined with ", ", as fetch's Headers joins it).
          const answered = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) answered.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          resolve({ status: res.statusCode!, headers: answered, text: new TextDecoder().decode(Buffer.concat(chunks)) });
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && error.code === 'ECONNRESET' && IDEMPOTENT.has(method.toUpperCase())) resolve(attempt(true));
        else reject(error);
      });
      req.end(body);
    });
  return attempt(false);
}

/**
 * Sends until the answer is not a 503, waiting what its Retry-After says (1 s without one) before each
 * try, at most `attempts` times: a client that honours Retry-After (a throttled workspace's partitions
 * refill meanwhile).
 */
export async function honouringRetryAfter(send: () => Promise<Response>, attempts = 30): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 503 || attempt >= attempts) return res;
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

export function uniqueWorkspace(prefix = 'ws'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export async function tokenFor(
  workspaces: string | string[],
  opts: { scopes?: Scope[]; expiresAt?: Date; name?: string; username?: string; limits?: RateLimit } = {},
): Promise<string> {
  const { token } = await createToken({
    workspaces: Array.isArray(workspaces) ? workspaces : [workspaces],
    owner: { name: opts.name ?? 'Test User', username: opts.username ?? 'tester' },
    scopes: opts.scopes ?? [...SCOPES],
    // Suites send requests as fast as they can: a token's rate limit is tested on its own tokens.
    limits: opts.limits ?? MAX_RATE_LIMIT,
    ...(opts.expiresAt ? { expiresAt: opts.expiresAt } : {}),
  });
  return token;
}

/** A fresh workspace with an all-scopes token, and request helpers bound to both. */
export async function workspaceClient(prefix?: string) {
  const ws = uniqueWorkspace(prefix);
  const token = await tokenFor(ws);
  const q = (path: string, params: Record<string, string> = {}) => {
    const search = new URLSearchParams({ company_slug: ws, ...params });
    return `${path}${path.includes('?') ? '&' : '?'}${search}`;
  };
  return {
    ws,
    token,
    q,
    get: (path: string, params?: Record<string, string>) => call('GET', q(path, params), { token }),
    post: (path: string, body?: unknown, params?: Record<string, string>) => call('POST', q(path, params), { token, body }),
    put: (path: string, body?: unknown, params?: Record<string, string>) => call('PUT', q(path, params), { token, body }),
    del: (path: string, body?: unknown, params?: Record<string, string>) => call('DELETE', q(path, params), { token, body }),
    createProject: async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await call('POST', '/projects', { token, body: { company_slug: ws, name, ...extra } });
      if (res.status !== 201) throw new Error(`create project failed: ${res.status} ${res.text}`);
      return res.body.data as { slug: string; name: string };
    },
    createLabel: async (title: string, color = 'FF5733') => {
      const res = await call('POST', q('/projects-labels'), { token, body: { title, color } });
      if (res.status !== 201) throw new Error(`create label failed: ${res.status} ${res.text}`);
      return res.body.data as { id: number; slug: string; title: string; color: string };
    },
  };
}

export type WorkspaceClient = Awaited<ReturnType<typeof workspaceClient>>;
