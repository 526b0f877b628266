import { GetCommand, QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { storedProjectItem } from '#domain/projects';
import { tableName } from '#store/table';
import { lambdaContext } from '#local/gateway';
import { benchWorkspace, handlers, projectRecord, route } from './harness.ts';
import { log, median } from './stats.ts';

/**
 * Section 3: what the shared stack (middy, header normalizer, scope check, JSON body handling, zod
 * validation, response rendering) adds to a warm invocation. The DocumentClient is answered by a
 * stub, so only in-process work is timed; the baseline is a bare handler making the same SDK call
 * and returning the same kind of JSON, with no middleware and no validation.
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

const bareGet: Handler = async (event) => {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.project(event.queryStringParameters!.company_slug!, event.pathParameters!.slug!),
      ConsistentRead: true,
    }),
  );
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: Item }) };
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

export async function measureWarm(runs: number, iterations: number): Promise<WarmRow[]> {
  const w = await benchWorkspace('warm');
  const records = Array.from({ length: 51 }, (_, i) => projectRecord(w.ws, `Warm project ${i}`));
  const mock = mockClient(DynamoDBDocumentClient);
  try {
    mock.on(GetCommand).resolves({ Item: storedProjectItem(records[0]!) });
    mock.on(QueryCommand).resolves({ Items: records.map((r) => storedProjectItem(r)) });
    const { handlers: map } = await handlers();
    const cases = [
      { endpoint: 'get-project', bare: bareGet, event: w.event('get-project', { path: { slug: records[0]!.slug } }) },
      { endpoint: 'project-stats', bare: bareGet, event: w.event('project-stats', { path: { slug: records[0]!.slug } }) },
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
      rows.push({ endpoint: c.endpoint, handlerUs: median(h), bareUs: median(b), stubUs: stub, ratio: median(ratios), ratios });
      log(`warm ${c.endpoint}: ${median(h).toFixed(1)} us vs bare ${median(b).toFixed(1)} us`);
    }
    return rows;
  } finally {
    mock.restore();
  }
}
