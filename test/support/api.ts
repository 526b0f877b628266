import { localStack } from './stack.ts';
import { randomBytes } from 'node:crypto';

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
}

/** One HTTP request to the local API; JSON in, JSON (or problem+json) out. */
export async function call(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${opts.base ?? apiUrl()}${path}`, { method, headers, body });
  const text = await res.text();
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
