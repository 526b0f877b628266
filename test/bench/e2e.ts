import autocannon from 'autocannon';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { tableName } from '#store/table';
import type { Workspace } from './harness.ts';
import { log, median, percentile } from './stats.ts';

/**
 * Section 4: GET project and list projects through the local API (API Gateway emulator, token
 * authorizer, handler, DynamoDB Local) under load, next to the same GetItem / Query sent straight
 * from a DocumentClient with the same concurrency against the same DynamoDB Local, in the same run.
 */
interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface E2eRow {
  endpoint: string;
  api: LoadFigures;
  raw: LoadFigures;
  /** Medians over rounds of per-round ratios, API / raw. */
  rpsRatio: number;
  p50Ratio: number;
  p99Ratio: number;
  rounds: { api: LoadFigures; raw: LoadFigures }[];
}

async function viaApi(url: string, token: string, connections: number, seconds: number): Promise<LoadFigures> {
  const result = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

async function viaClient(call: () => Promise<unknown>, connections: number, seconds: number): Promise<LoadFigures> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (Date.now() < deadline) {
      const t = process.hrtime.bigint();
      try {
        await call();
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export async function measureEndToEnd(opts: {
  apiUrl: string;
  dynamodbEndpoint: string;
  w: Workspace;
  projectSlug: string;
  rounds: number;
  seconds: number;
  connections: number;
}): Promise<E2eRow[]> {
  const { w } = opts;
  // A client of its own (no benchmark middleware), configured like the service's.
  const raw = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: opts.dynamodbEndpoint,
      maxAttempts: 4,
      retryMode: 'standard',
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const cases = [
    {
      endpoint: 'GET /projects/{slug}',
      url: `${opts.apiUrl}/projects/${opts.projectSlug}?company_slug=${w.ws}`,
      call: () => raw.send(new GetCommand({ TableName: tableName(), Key: keys.project(w.ws, opts.projectSlug), ConsistentRead: true })),
    },
    {
      endpoint: 'GET /projects (page of 50)',
      url: `${opts.apiUrl}/projects?company_slug=${w.ws}`,
      call: () =>
        raw.send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
            ExpressionAttributeValues: { ':pk': keys.workspace(w.ws), ':p': keys.projectSkPrefix },
            ConsistentRead: true,
            Limit: 51,
          }),
        ),
    },
  ];
  const rows: E2eRow[] = [];
  for (const c of cases) {
    // Warm both paths (JIT, connections, DynamoDB Local) before measuring.
    await viaApi(c.url, w.token, opts.connections, 2);
    await viaClient(c.call, opts.connections, 2);
    const rounds: E2eRow['rounds'] = [];
    for (let i = 0; i < opts.rounds; i++) {
      const api = await viaApi(c.url, w.token, opts.connections, opts.seconds);
      const direct = await viaClient(c.call, opts.connections, opts.seconds);
      rounds.push({ api, raw: direct });
      log(
        `e2e ${c.endpoint} round ${i + 1}: API ${api.rps.toFixed(0)} req/s p50 ${api.p50} ms; raw ${direct.rps.toFixed(0)} req/s p50 ${direct.p50.toFixed(1)} ms`,
      );
    }
    const med = (pick: (f: LoadFigures) => number, side: 'api' | 'raw') => median(rounds.map((r) => pick(r[side])));
    const figures = (side: 'api' | 'raw'): LoadFigures => ({
      rps: med((f) => f.rps, side),
      p50: med((f) => f.p50, side),
      p99: med((f) => f.p99, side),
      errors: rounds.reduce((n, r) => n + r[side].errors, 0),
    });
    rows.push({
      endpoint: c.endpoint,
      api: figures('api'),
      raw: figures('raw'),
      rpsRatio: median(rounds.map((r) => r.api.rps / r.raw.rps)),
      p50Ratio: median(rounds.map((r) => r.api.p50 / r.raw.p50)),
      p99Ratio: median(rounds.map((r) => r.api.p99 / r.raw.p99)),
      rounds,
    });
  }
  raw.destroy();
  return rows;
}
