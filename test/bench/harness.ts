import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { toAuthorizerContext, type Principal } from '#http/principal';
import { FRESH_STATS, storedProjectItems, taskPrefixFor } from '#domain/projects';
import { routes, type Route } from '#http/routes';
import { SCOPES } from '#domain/scopes';
import { slugify } from '#domain/slugs';
import { tableName } from '#store/table';
import { createToken, MAX_RATE_LIMIT } from '#domain/tokens';
import { loadHandlers } from '#local/gateway';
import { lambdaContext, proxyEvent } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import type { ProjectRecord } from '#domain/entities';

/**
 * In-process invocation of the real handlers with the event API Gateway would send (authorizer
 * context included), against whatever the shared DocumentClient points at.
 */
export type Loaded = Awaited<ReturnType<typeof loadHandlers>>;
let loaded: Loaded | undefined;
export async function handlers(): Promise<Loaded> {
  loaded ??= await loadHandlers(repoRoot);
  return loaded;
}

export function route(name: string): Route {
  const r = routes.find((x) => x.name === name);
  if (!r) throw new Error(`no route ${name}`);
  return r;
}

interface Call {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Workspace {
  ws: string;
  token: string;
  authorizer: Record<string, unknown>;
  invoke(name: string, call?: Call): Promise<{ status: number; body: any }>;
  /** The event for a call, built once (for tight loops). */
  event(name: string, call?: Call): ReturnType<typeof proxyEvent>;
}

export async function benchWorkspace(prefix: string): Promise<Workspace> {
  const ws = `${prefix}-${randomBytes(4).toString('hex')}`;
  const owner = { name: 'Bench User', username: 'bench' };
  const { token, record } = await createToken({ workspaces: [ws], owner, scopes: [...SCOPES], limits: MAX_RATE_LIMIT });
  const principal: Principal = { tokenId: record.id, owner, workspaces: [ws], scopes: [...SCOPES] };
  const authorizer = { principalId: record.id, integrationLatency: 0, ...toAuthorizerContext(principal) };
  const { handlers: map } = await handlers();
  const event = (name: string, call: Call = {}) => {
    const r = route(name);
    const pathParameters = call.path ?? {};
    const path = r.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(pathParameters[k] ?? ''));
    return proxyEvent({
      route: r,
      method: r.method,
      path,
      pathParameters,
      query: new URLSearchParams({ company_slug: ws, ...call.query }),
      headers: { ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
      body: call.body === undefined ? null : JSON.stringify(call.body),
      authorizer,
    });
  };
  const invoke = async (name: string, call: Call = {}) => {
    const result: APIGatewayProxyResult = await map.get(route(name))!(event(name, call), lambdaContext(name));
    const body = result.body ? JSON.parse(result.body) : undefined;
    if (result.statusCode >= 400) throw new Error(`${name} answered ${result.statusCode}: ${result.body}`);
    return { status: result.statusCode, body };
  };
  return { ws, token, authorizer, invoke, event };
}

/** A project record as createProject would build it, for seeding without the handler. */
/** The actor of the benchmarks' own writes. */
export const BENCH_ACTOR = { name: 'Bench', username: 'bench' };

export function projectRecord(ws: string, name: string, fields: Partial<ProjectRecord> = {}): ProjectRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    workspace: ws,
    slug: slugify(name, 'project'),
    name,
    description: `Benchmark project ${name}`,
    visibility: 'public',
    recurring: false,
    owner: { name: 'Bench User', username: 'bench' },
    status: 'in_progress',
    settings: { default_workflow: 'kanban', task_prefix: taskPrefixFor(name) },
    ...FRESH_STATS,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}

/** Writes items with BatchWriteItem, 25 per call, several calls in flight, retrying unprocessed items. */
export async function batchPut(items: Record<string, unknown>[], concurrency = 8): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let requests = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (requests.length) {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (out.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function seedProjects(ws: string, count: number, name: (i: number) => string): Promise<ProjectRecord[]> {
  const records = Array.from({ length: count }, (_, i) => projectRecord(ws, name(i)));
  await batchPut(records.flatMap((r) => storedProjectItems(r)));
  return records;
}
