import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OutboundEvent } from '#events/outbound';
import { repoRoot } from '#lib/paths';
import { writeWebhook } from '#local/sampleWebhooks';
import { startLocalWebhooks } from '#local/webhookQueue';
import { consumeWebhookMessages } from '#webhooks/consumer';
import { fmt, log, percentile, table } from './stats.ts';

/**
 * One tenant's dead endpoints beside another's working one: 20 webhooks (each of a workspace of its
 * own) whose endpoints never answer, and one whose endpoint is busy at each delivery's first attempt
 * (503, Retry-After: 1) and takes its retry, so that every one of its deliveries crosses the retry lane,
 * the lane the dead endpoints' attempts fill. Events go to all of them for a while; the figure is how
 * long the working endpoint's deliveries take, event to 2xx. Run in process on the local lanes
 * (lib/local/webhookQueue.ts) with the deployed caps scaled to a 1 s answer timeout (deployed: 10 s and
 * 10 pollers of 10 on the retry lane, 100 attempts at once, 10 a second; here 10 at once, 10 a second).
 */
export interface LaneBenchRow {
  seconds: number;
  deadEndpoints: number;
  eventsPerDeadEndpointPerSecond: number;
  healthy: { sent: number; arrived: number; latencyMs: { p50: number; p95: number; max: number } };
  /** Requests the dead endpoints received (each held a slot of a lane for the timeout). */
  deadAttempts: number;
  /** How long the working endpoint's deliveries were waited for after the events stopped. */
  drainS: number;
}

const DEAD = 20;
const DEAD_EVENTS_PER_S = 2;
const CAPS = { fresh: 50, retry: 10 };
const SETTINGS = { WEBHOOKS_TIMEOUT: '1s', WEBHOOKS_RETRY_SCHEDULE: '1s,5s,30s,1m,2m', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' };

/** The endpoints: /dead never answers; /busy refuses a delivery's first attempt and takes the next. */
async function endpoints() {
  const arrivals = new Map<string, number>();
  const seen = new Set<string>();
  const held = new Set<ServerResponse>();
  let deadAttempts = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/dead') {
        deadAttempts++;
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (!seen.has(id)) {
        seen.add(id);
        return void res.writeHead(503, { 'retry-after': '1' }).end();
      }
      res.writeHead(204).end();
      const event = (JSON.parse(body) as { data: { event_id: string } }).data.event_id;
      if (!arrivals.has(event)) arrivals.set(event, performance.now());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    dead: `${base}/dead`,
    busy: `${base}/busy`,
    arrivals,
    deadAttempts: () => deadAttempts,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

const event = (ws: string, id: string): OutboundEvent =>
  ({
    detailType: 'Label Created',
    time: new Date().toISOString(),
    detail: { event_id: id, company_slug: ws, occurred_at: new Date().toISOString(), data: { title: id } },
  }) as unknown as OutboundEvent;

export async function measureLaneIsolation(opts: { seconds: number; drainS: number }): Promise<LaneBenchRow> {
  const saved = Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, process.env[k]]));
  Object.assign(process.env, SETTINGS);
  const target = await endpoints();
  const run = randomBytes(4).toString('hex');
  const deadWs = Array.from({ length: DEAD }, (_, i) => `lanes-${run}-dead-${i}`);
  const busyWs = `lanes-${run}-busy`;
  for (const [i, ws] of deadWs.entries())
    await writeWebhook({ id: `wh_lanes${run}dead${String(i).padStart(8, '0')}`, workspace: ws, url: target.dead });
  await writeWebhook({ id: `wh_lanes${run}busy00000000`, workspace: busyWs, url: target.busy });
  const lanes = startLocalWebhooks({
    consume: consumeWebhookMessages,
    deadLetterFile: join(repoRoot, '.bench', 'lanes-dead-letters.jsonl'),
    log: () => undefined,
    caps: CAPS,
  });
  const sentAt = new Map<string, number>();
  try {
    const ticks = opts.seconds * DEAD_EVENTS_PER_S;
    for (let tick = 0; tick < ticks; tick++) {
      const events = deadWs.map((ws) => event(ws, `${ws}-${tick}`));
      if (tick % DEAD_EVENTS_PER_S === 0) {
        const id = `${busyWs}-${tick}`;
        sentAt.set(id, performance.now());
        events.push(event(busyWs, id));
      }
      await lanes.bus.publish(events);
      await new Promise((r) => setTimeout(r, 1000 / DEAD_EVENTS_PER_S));
    }
    const until = performance.now() + opts.drainS * 1000;
    while (target.arrivals.size < sentAt.size && performance.now() < until) await new Promise((r) => setTimeout(r, 200));
  } finally {
    await lanes.stop();
    await target.close();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  const latencies = [...sentAt].flatMap(([id, at]) => {
    const arrived = target.arrivals.get(id);
    return arrived === undefined ? [] : [arrived - at];
  });
  const row: LaneBenchRow = {
    seconds: opts.seconds,
    deadEndpoints: DEAD,
    eventsPerDeadEndpointPerSecond: DEAD_EVENTS_PER_S,
    healthy: {
      sent: sentAt.size,
      arrived: latencies.length,
      latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(0, ...latencies) },
    },
    deadAttempts: target.deadAttempts(),
    drainS: opts.drainS,
  };
  log(
    `lanes: working endpoint ${row.healthy.arrived}/${row.healthy.sent} delivered, p50 ${fmt(row.healthy.latencyMs.p50 / 1000, 1)} s, p95 ${fmt(row.healthy.latencyMs.p95 / 1000, 1)} s; dead endpoints got ${row.deadAttempts} requests`,
  );
  return row;
}

export function renderLanes(r: LaneBenchRow | undefined): string {
  if (!r) return '';
  const s = (ms: number) => `${fmt(ms / 1000, 1)} s`;
  return `
### Webhooks: a working endpoint beside ${r.deadEndpoints} dead ones

${r.deadEndpoints} webhooks, each of a workspace of its own, whose endpoints never answer, and one whose endpoint
refuses each delivery's first attempt (503, \`Retry-After: 1\`) and takes the retry, so that each of its deliveries
crosses the retry lane (\`test/bench/webhookLanes.ts\`). For ${r.seconds} s, ${r.eventsPerDeadEndpointPerSecond} events a
second go to each dead endpoint and one a second to the working one; the deliverer runs in process on the local
lanes with the deployed caps scaled to a 1 s answer timeout (10 attempts at once on the retry lane, 10 a second, as
the deployed 100 at once with 10 s). The working endpoint's deliveries, event to 2xx, waited for up to ${r.drainS} s
after the last event:

${table(
  ['delivered', 'p50', 'p95', 'max', 'requests to the dead endpoints'],
  [
    [
      `${r.healthy.arrived} of ${r.healthy.sent}`,
      s(r.healthy.latencyMs.p50),
      s(r.healthy.latencyMs.p95),
      s(r.healthy.latencyMs.max),
      r.deadAttempts,
    ],
  ],
)}

Before the circuit breaker (the same scenario on the commit before it, 2026-11-28): 5 of 30 delivered within the 90 s,
p50 22.3 s of those; the dead endpoints got 1,200 requests, each holding a place on the retry lane for its timeout, and
the working endpoint's retries waited behind them. With the breaker, a dead endpoint costs the lane one probe at a time;
what the working endpoint still waits for is the first seconds, before the dead endpoints' breakers open (5 s of failing: twice the
first retry's wait, at least 5 s).
`;
}
