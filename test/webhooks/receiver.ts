import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import { webhookMismatches } from '#support/asyncapi';

/** What a test endpoint received: one POST, its headers and body as sent. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, any> };
}

/**
 * A webhook endpoint on loopback for tests: records every request per path and answers as the test
 * says (a status, or never). `next(path, match)` resolves when a matching request arrives: tests wait
 * for the delivery itself, never for time to pass. Every delivery is checked against the AsyncAPI document.
 */
export async function startReceiver() {
  const received: Received[] = [];
  type Answer = number | 'hang' | { status: number; headers: Record<string, string> };
  const answers = new Map<string, (n: number) => Answer | Promise<number>>();
  const waiters: { path: string; match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const hanging: ServerResponse[] = [];
  const mismatches: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', async () => {
      const path = req.url ?? '/';
      const r: Received = { path, headers: req.headers, body, json: JSON.parse(body) };
      received.push(r);
      mismatches.push(...webhookMismatches(req.headers as Record<string, unknown>, r.json));
      const answer = await (answers.get(path)?.(received.filter((x) => x.path === path).length) ?? 200);
      if (answer === 'hang') hanging.push(res);
      else {
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
      }
      for (const w of waiters.filter((w) => w.path === path && w.match(r))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    received: (path: string) => received.filter((r) => r.path === path),
    /** What of the deliveries received so far the AsyncAPI document does not describe (asyncapi.json's webhooks channel). */
    mismatches: () => [...mismatches],
    /** How the endpoint at `path` answers its n-th request (1-based): a status (once the promise settles), with headers, or 'hang' (never). */
    answer: (path: string, how: (n: number) => Answer | Promise<number>) => answers.set(path, how),
    next: (path: string, match: (r: Received) => boolean = () => true) =>
      new Promise<Received>((resolve) => {
        const already = received.find((r) => r.path === path && match(r));
        if (already) resolve(already);
        else waiters.push({ path, match, resolve });
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A receiver for the test file's in-process deliveries: started before its tests, with this process
 * allowed to deliver to loopback (WEBHOOKS_ALLOW_PRIVATE_TARGETS) meanwhile, closed and the setting put
 * back after. The object it returns stands for the receiver once started.
 */
export function useInProcessReceiver(): Receiver {
  let started: Receiver | undefined;
  const allowed = process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
  beforeAll(async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
    started = await startReceiver();
  });
  afterAll(async () => {
    if (allowed === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = allowed;
    await started?.close();
  });
  return new Proxy({} as Receiver, { get: (_, name: keyof Receiver) => started![name] });
}
