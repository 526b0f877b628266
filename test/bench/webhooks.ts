import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeWebhook } from '#local/sampleWebhooks';
import { deliverEvent } from '#webhooks/deliveries';
import type { WebhookQueue } from '#webhooks/queue';
import { metered, describeCalls, type Usage } from './capacity.ts';
import type { Workspace } from './harness.ts';
import { fmt, log, percentile, table } from './stats.ts';

/**
 * Webhooks: how long a change takes to reach an endpoint (the write's answer to the endpoint's receipt,
 * through the local stream, bus, queue and deliverer: `npm start`'s path, which runs the deployed code),
 * and what one delivery costs (the deliverer's DynamoDB calls, metered in process, with the AWS prices of
 * the queue and the function around it).
 */
export interface WebhookBenchRow {
  deliveries: number;
  latencyMs: { p50: number; p99: number; max: number };
  perDelivery: Usage;
  deliveriesMetered: number;
  deliverMsMean: number;
}

/** A loopback endpoint answering 204, resolving `arrived(key)` when a delivery whose key matches comes in. */
async function endpoint(keyOf: (body: any) => string) {
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const key = keyOf(JSON.parse(body));
      waiting.get(key)?.(at);
      waiting.delete(key);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrived: (key: string) => new Promise<number>((resolve) => waiting.set(key, resolve)),
    close: () => new Promise((r) => server.close(r)),
  };
}

export async function measureWebhooks(opts: { apiUrl: string; w: Workspace; deliveries: number }): Promise<WebhookBenchRow> {
  const { apiUrl, w } = opts;
  const target = await endpoint((body) => String(body.data?.data?.title ?? body.data?.webhook_id));
  const headers = { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' };
  try {
    const registered = await fetch(`${apiUrl}/webhooks?company_slug=${w.ws}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: target.url, events: ['Label Created'] }),
    });
    if (registered.status !== 201)
      throw new Error(`registering the bench webhook answered ${registered.status}: ${await registered.text()}`);
    const latencies: number[] = [];
    for (let i = 0; i < opts.deliveries; i++) {
      const title = `Hook bench ${i}`;
      const arrival = target.arrived(title);
      const res = await fetch(`${apiUrl}/projects-labels?company_slug=${w.ws}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title, color: '00AA00' }),
      });
      const answered = performance.now();
      if (res.status !== 201) throw new Error(`creating a label answered ${res.status}`);
      latencies.push((await arrival) - answered);
    }
    log(
      `webhooks: ${latencies.length} deliveries, p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms`,
    );

    // One delivery's own cost: the deliverer, in process, on an event of a workspace with one webhook.
    const ws = `${w.ws}-cost`;
    await writeWebhook({ id: 'wh_000000000000000000bench0', workspace: ws, url: target.url });
    const queue: WebhookQueue = { later: async () => undefined, deadLetter: async () => undefined };
    const metered_n = Math.max(20, Math.floor(opts.deliveries / 2));
    const allowed = process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
    const started = performance.now();
    const { usage } = await metered(async () => {
      for (let i = 0; i < metered_n; i++) {
        const detail = { event_id: `bench-${i}`, company_slug: ws, occurred_at: new Date().toISOString(), data: { title: `cost ${i}` } };
        const [outcome] = await deliverEvent({ type: 'Label Created', detail }, queue);
        if (outcome !== 'delivered') throw new Error(`the metered delivery was ${outcome}`);
      }
    });
    const deliverMsMean = (performance.now() - started) / metered_n;
    if (allowed === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = allowed;
    return {
      deliveries: latencies.length,
      latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) },
      perDelivery: {
        ...usage,
        calls: usage.calls / metered_n,
        rcu: usage.rcu / metered_n,
        wcu: usage.wcu / metered_n,
        byOperation: perOne(usage.byOperation, metered_n),
      },
      deliveriesMetered: metered_n,
      deliverMsMean,
    };
  } finally {
    await target.close();
  }
}

const perOne = (ops: Record<string, number>, n: number) => Object.fromEntries(Object.entries(ops).map(([op, c]) => [op, c / n]));

/** AWS list prices (us-east-1) of what a delivery uses besides DynamoDB. */
const PRICES = {
  sqsRequestPerMillion: 0.4,
  lambdaRequestPerMillion: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  readRequestUnitPerMillion: 0.125,
  writeRequestUnitPerMillion: 0.625,
};
/** Assumed: a batch of 10 deliveries runs its POSTs at once and is billed for its slowest, taken as 200 ms. */
const ASSUMED_BATCH_MS = 200;

export function renderWebhooks(r: WebhookBenchRow | undefined): string {
  if (!r) return '';
  const u = r.perDelivery;
  const dynamo = u.rcu * PRICES.readRequestUnitPerMillion + u.wcu * PRICES.writeRequestUnitPerMillion;
  // Per delivery: the rule's SendMessage, and a tenth of a ReceiveMessage and of a DeleteMessageBatch (batches of 10).
  const sqs = 1.2 * PRICES.sqsRequestPerMillion;
  const lambda = PRICES.lambdaRequestPerMillion / 10 + 1e6 * (ASSUMED_BATCH_MS / 1000 / 10) * 1 * PRICES.lambdaArmGbSecond;
  const usd = (n: number) => `$${n.toFixed(3)}`;
  return `
### Webhooks: event to delivery, and the cost of a delivery

${r.deliveries} labels created one after another through the local API, each delivered to a webhook on loopback
(\`test/bench/webhooks.ts\`): from the create's answer to the endpoint's receipt, through the table's stream, the bus,
the deliveries queue and the deliverer (\`npm start\` runs the deployed code; its stream reader polls, where Lambda's
is pushed):

${table(['deliveries', 'p50', 'p99', 'max'], [[r.deliveries, `${fmt(r.latencyMs.p50, 1)} ms`, `${fmt(r.latencyMs.p99, 1)} ms`, `${fmt(r.latencyMs.max, 1)} ms`]])}

One delivery (${r.deliveriesMetered} metered in process, mean ${fmt(r.deliverMsMean, 1)} ms each with a loopback endpoint): ${fmt(u.calls, 2)} DynamoDB calls
(${describeCalls(u)}), ${fmt(u.rcu, 2)} RCU and ${fmt(u.wcu, 2)} WCU: the webhooks of the workspace (one Query), the
delivery (a conditional PutItem) and its outcome (one UpdateItem), each also writing the delivery's entry in the sweeper's
due index (GSI3: made with the delivery, removed with its outcome). Per million deliveries: DynamoDB ${usd(dynamo)},
SQS ${usd(sqs)} (1.2 requests each), Lambda ${usd(lambda)} (batches of 10 at 1 GB arm, billed ${ASSUMED_BATCH_MS} ms a batch,
an assumption: the endpoints' answer time decides it): **${usd(dynamo + sqs + lambda)} per million deliveries**, a retry
adding about the same. EventBridge bills the event once, whoever receives it.
`;
}
