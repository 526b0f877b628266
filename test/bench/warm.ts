import { closeSync, openSync, writeSync } from 'node:fs';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { FinalizeHandlerArguments, MetadataBearer } from '@smithy/types';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { storedProjectItem } from '#domain/projects';
import { tableName } from '#store/table';
import { lambdaContext } from '#local/lambdaEvents';
import { limitWorkspaces } from '#domain/workspaceRateLimits';
import { STAGES } from '#cdk/stage';
import { benchWorkspace, handlers, projectRecord, route } from './harness.ts';
import { log, median } from './stats.ts';

/**
 * Section 3: what the shared stack (middy, header normalizer, scope check, JSON body handling, zod
 * validation, response rendering, the request's log line and metrics) adds to a warm invocation.
 * DynamoDB is answered by a fair stub: a client middleware at the innermost step that returns the
 * HTTP response DynamoDB would send, so marshalling, signing and deserialising still run for both the
 * handler and the baseline, a bare handler making the same SDK call and returning the same kind of
 * JSON, with no middleware, no validation and no logging (a project's read: its item and its kept stats, as the
 * service reads both). The log and metrics lines are written to
 * /dev/null, a real write per line, as Lambda's stdout is. The workspace rate limits are on, as deployed (the prod
 * stage's WORKSPACE_RATE_LIMITS): each request is counted, and its counts are sent (answered by the stub) as they
 * would be.
 */
export interface WarmRow {
  endpoint: string;
  handlerUs: number;
  bareUs: number;
  /** The stub's own cost per call (a bare `send` of the same command), included in both. */
  stubUs: number;
  ratio: number;
  ratios: number[];
}

type Handler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** A project read as the service reads it: its item and its kept stats (store/projectStats.ts), at once. */
const bareGetWithStats: Handler = async (event) => {
  const ws = event.queryStringParameters!.company_slug!;
  const slug = event.pathParameters!.slug!;
  const get = (Key: Record<string, string>) => db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
  const [{ Item }, { Item: kept }] = await Promise.all([get(keys.project(ws, slug)), get(keys.projectStats(ws, slug))]);
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: { ...Item, kept } }) };
};

const bareList: Handler = async (event) => {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.workspace(event.queryStringParameters!.company_slug!), ':p': keys.projectSkPrefix },
      ConsistentRead: true,
      Limit: 51,
    }),
  );
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: (Items ?? []).slice(0, 50) }) };
};

async function perCallMicros(fn: () => Promise<unknown>, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / iterations;
}

const STUB = 'benchDynamoDbStub';

/** DynamoDB's answers by operation (the X-Amz-Target header), as the bytes it would send. */
function installStub(answers: Record<string, unknown>): () => void {
  const bodies = new Map(Object.entries(answers).map(([op, body]) => [`DynamoDB_20120810.${op}`, Buffer.from(JSON.stringify(body))]));
  db.middlewareStack.add(
    () => async (args: FinalizeHandlerArguments<object>) => {
      const request = args.request as { headers: Record<string, string>; body?: unknown };
      // A project's kept stats (STATS#...): none, as a project no event has counted yet has.
      const keptStats = typeof request.body === 'string' && request.body.includes('"STATS#');
      const body = keptStats ? Buffer.from('{}') : bodies.get(request.headers['x-amz-target'] ?? '');
      if (!body) throw new Error(`no stub answer for ${request.headers['x-amz-target']}`);
      const response = { statusCode: 200, reason: 'OK', headers: { 'content-type': 'application/x-amz-json-1.0' }, body };
      return { response, output: undefined as unknown as MetadataBearer };
    },
    { step: 'deserialize', priority: 'low', name: STUB },
  );
  return () => db.middlewareStack.remove(STUB);
}

/** stdout and stderr into /dev/null while measuring: the handler's log and metrics lines cost a write each. */
function discardOutput(): () => void {
  const sink = openSync('/dev/null', 'w');
  const saved = { out: process.stdout.write, err: process.stderr.write };
  const write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') writeSync(sink, chunk);
    else writeSync(sink, chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = write;
  process.stderr.write = write;
  return () => {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    closeSync(sink);
  };
}

export async function measureWarm(runs: number, iterations: number): Promise<WarmRow[]> {
  const w = await benchWorkspace('warm');
  const records = Array.from({ length: 51 }, (_, i) => projectRecord(w.ws, `Warm project ${i}`));
  const removeStub = installStub({
    GetItem: { Item: marshall(storedProjectItem(records[0]!), { removeUndefinedValues: true }) },
    // A send of the workspace's counts (store/workspaceLoads.ts): its second's item, with nothing counted by others.
    UpdateItem: { Attributes: {} },
    Query: {
      Items: records.map((r) => marshall(storedProjectItem(r), { removeUndefinedValues: true })),
      Count: records.length,
      ScannedCount: records.length,
    },
  });
  let restoreOutput: (() => void) | undefined;
  limitWorkspaces(STAGES.prod.workspaceRateLimits);
  try {
    const { handlers: map } = await handlers();
    const cases = [
      { endpoint: 'get-project', bare: bareGetWithStats, event: w.event('get-project', { path: { slug: records[0]!.slug } }) },
      { endpoint: 'project-stats', bare: bareGetWithStats, event: w.event('project-stats', { path: { slug: records[0]!.slug } }) },
      { endpoint: 'list-projects', bare: bareList, event: w.event('list-projects') },
    ];
    const rows: WarmRow[] = [];
    for (const c of cases) {
      const handler = map.get(route(c.endpoint))!;
      const context = lambdaContext(c.endpoint);
      // GET events without a body come out of the stack as they went in (header normalization and
      // the empty-body step are idempotent), so one event serves every call of both handlers.
      const viaHandler = async () => {
        const res = await handler(c.event, context);
        if (res.statusCode !== 200) throw new Error(`${c.endpoint} answered ${res.statusCode}: ${res.body}`);
      };
      const viaBare = () => c.bare(c.event);
      restoreOutput = discardOutput();
      await perCallMicros(viaHandler, iterations);
      await perCallMicros(viaBare, iterations);
      const h: number[] = [];
      const b: number[] = [];
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        // Alternate which goes first, so that neither always runs on a heap the other just filled.
        let hu: number;
        let bu: number;
        if (run % 2 === 0) {
          hu = await perCallMicros(viaHandler, iterations);
          bu = await perCallMicros(viaBare, iterations);
        } else {
          bu = await perCallMicros(viaBare, iterations);
          hu = await perCallMicros(viaHandler, iterations);
        }
        h.push(hu);
        b.push(bu);
        ratios.push(hu / bu);
      }
      const stubCall =
        c.endpoint === 'list-projects'
          ? () =>
              db.send(
                new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'x' } }),
              )
          : () => db.send(new GetCommand({ TableName: tableName(), Key: { PK: 'x', SK: 'y' } }));
      const stub = await perCallMicros(stubCall, iterations);
      restoreOutput();
      restoreOutput = undefined;
      rows.push({ endpoint: c.endpoint, handlerUs: median(h), bareUs: median(b), stubUs: stub, ratio: median(ratios), ratios });
      log(`warm ${c.endpoint}: ${median(h).toFixed(1)} us vs bare ${median(b).toFixed(1)} us`);
    }
    return rows;
  } finally {
    limitWorkspaces(undefined);
    restoreOutput?.();
    removeStub();
  }
}

export interface LineCosts {
  /** One request log line (Powertools Logger), us. */
  logUs: number;
  /** One request metrics line (Powertools Metrics, EMF), us. */
  metricsUs: number;
}

/** What a request's log line and metrics line cost alone, written to /dev/null: median of 9 runs of 2,000. */
export async function measureLineCosts(): Promise<LineCosts> {
  const { logger } = await import('#observability/log');
  const { publishMetrics } = await import('#observability/metrics');
  const fields = {
    request_id: '9bf373f5-17d0-456d-93f9-5c01b8873338',
    api_request_id: '933229c0-507b-4cf4-872d-b5fe70898f16',
    correlation_id: 'e474cca0-6692-45b1-84b5-01cf6cf2b2a4',
    route: 'get-project',
    method: 'GET',
    workspace: 'acme-corp',
    token_id: '2vq3cp25fkgrmmvh',
    status: 200,
    latency_ms: 12.3,
  };
  const restore = discardOutput();
  try {
    const log: number[] = [];
    const metrics: number[] = [];
    for (let run = 0; run < 9; run++) {
      log.push(await perCallMicros(async () => logger.info('request', fields), 2_000));
      metrics.push(
        await perCallMicros(
          async () =>
            publishMetrics(
              'bench',
              'bench',
              [
                ['Requests', 1],
                ['Status2xx', 1],
              ],
              { correlation_id: fields.correlation_id },
            ),
          2_000,
        ),
      );
    }
    return { logUs: median(log), metricsUs: median(metrics) };
  } finally {
    restore();
  }
}
