import type { MixModel } from './mix.ts';

/**
 * What the model assumes of AWS beyond the table (us-east-1 list prices and default quotas, November
 * 2026; the doc prints every figure it uses, so a reader can redo the sums with their own).
 */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;

/** Price tiers: [requests (or GB-seconds) per month up to which this price applies, USD per million]. */
type Tiers = readonly [upTo: number, perMillion: number][];

export const PRICES = {
  /** API Gateway REST API requests. */
  apiGateway: [
    [333e6, 3.5],
    [1e9, 2.8],
    [20e9, 2.38],
    [Number.POSITIVE_INFINITY, 1.51],
  ] as Tiers,
  lambdaRequests: 0.2,
  /** Lambda arm64 duration, USD per million GB-seconds (the tiers are per GB-second). */
  lambdaDuration: [
    [7.5e9, 13.3334],
    [18.75e9, 12.0001],
    [Number.POSITIVE_INFINITY, 10.6667],
  ] as Tiers,
  dynamodbRead: 0.125,
  dynamodbWrite: 0.625,
  eventBridgeEvents: 1,
  sqsRequests: 0.4,
};

/** Lambda: every function's memory (lib/cdk/service-function.ts) and the billed time assumed per invocation. */
export const LAMBDA = { memoryGb: 1, requestMs: 20, batchMs: 100, streamBatch: 100, queueBatch: 10 } as const;

/** Default account quotas per region (raisable on request) and the stack's own stage throttles. */
const QUOTAS = {
  apiGatewayRps: 10_000,
  apiGatewayBurst: 5_000,
  lambdaConcurrency: 1_000,
  /** An on-demand table's default ceiling, read and write request units per second each. */
  tableUnits: 40_000,
} as const;

/** A monthly amount through price tiers. */
export function tiered(amount: number, tiers: Tiers): number {
  let cost = 0;
  let below = 0;
  for (const [upTo, perMillion] of tiers) {
    const inTier = Math.max(0, Math.min(amount, upTo) - below);
    cost += (inTier * perMillion) / 1e6;
    below = upTo;
    if (amount <= upTo) break;
  }
  return cost;
}

/** Lambda invocations per request of the mix: the handler, authorizer misses, and batches of the stream and queues. */
function invocationsPerRequest(mix: MixModel): { request: number; batches: number } {
  const p = mix.perRequest;
  return {
    request: 1 + p.authorizer,
    batches: p.records / LAMBDA.streamBatch + (p.inbound + p.deliveries) / LAMBDA.queueBatch,
  };
}

export interface MonthlyCost {
  rps: number;
  requests: number;
  apiGateway: number;
  lambda: number;
  dynamodb: number;
  messaging: number;
  total: number;
}

/** The month's bill at `rps` requests per second of the mix, spread over many workspaces (no key saturates). */
export function monthlyCost(mix: MixModel, rps: number): MonthlyCost {
  const requests = rps * SECONDS_PER_MONTH;
  const inv = invocationsPerRequest(mix);
  const invocations = requests * (inv.request + inv.batches);
  const gbSeconds = requests * (inv.request * LAMBDA.requestMs + inv.batches * LAMBDA.batchMs) * (LAMBDA.memoryGb / 1000);
  const lambda = (invocations * PRICES.lambdaRequests) / 1e6 + tiered(gbSeconds, PRICES.lambdaDuration);
  const dynamodb = (requests * (mix.perRequest.read * PRICES.dynamodbRead + mix.perRequest.write * PRICES.dynamodbWrite)) / 1e6;
  // Outbound events published; each inbound event and webhook delivery is about 1.2 SQS requests (send, and batched receive and delete).
  const messaging =
    (requests *
      (mix.perRequest.events * PRICES.eventBridgeEvents +
        (mix.perRequest.inbound + mix.perRequest.deliveries) * 1.2 * PRICES.sqsRequests)) /
    1e6;
  const apiGateway = tiered(requests, PRICES.apiGateway);
  return { rps, requests, apiGateway, lambda, dynamodb, messaging, total: apiGateway + lambda + dynamodb + messaging };
}

/** Requests per second of the mix each account-level limit allows. */
export function accountLimits(mix: MixModel): { name: string; rate: number; why: string }[] {
  const inv = invocationsPerRequest(mix);
  const seconds = (inv.request * LAMBDA.requestMs + inv.batches * LAMBDA.batchMs) / 1000;
  return [
    {
      name: 'API Gateway, account and region',
      rate: QUOTAS.apiGatewayRps,
      why: `${QUOTAS.apiGatewayRps.toLocaleString('en-US')} requests/s steady, ${QUOTAS.apiGatewayBurst.toLocaleString('en-US')} burst (default quota)`,
    },
    {
      name: 'Lambda concurrency, account and region',
      rate: QUOTAS.lambdaConcurrency / seconds,
      why: `${QUOTAS.lambdaConcurrency.toLocaleString('en-US')} concurrent executions / ${(seconds * 1000).toFixed(1)} ms of function time per request (${LAMBDA.requestMs} ms per request-path invocation, ${LAMBDA.batchMs} ms per batch)`,
    },
    {
      name: 'DynamoDB on-demand table ceiling',
      rate: Math.min(QUOTAS.tableUnits / Math.max(mix.perRequest.read, 1e-9), QUOTAS.tableUnits / Math.max(mix.perRequest.write, 1e-9)),
      why: `${QUOTAS.tableUnits.toLocaleString('en-US')} read and ${QUOTAS.tableUnits.toLocaleString('en-US')} write units/s per table (default quota), at ${mix.perRequest.read.toFixed(2)} read and ${mix.perRequest.write.toFixed(2)} write units per request`,
    },
  ];
}
