import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type LookupAll, resolutionProblem } from '#webhooks/addresses';
import { type SendResult, sendWebhook } from '#webhooks/send';

const deployed = { allowPrivate: false };
const developer = { allowPrivate: true };

/** A receiver on loopback: each path answers one way, and it counts what reached it. */
let server: Server;
let port: number;
let connections = 0;
const hits: { path: string; method: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      else if (req.url === '/fail') res.writeHead(500).end('{"error":"boom"}');
      else if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
      else if (req.url === '/elsewhere') res.writeHead(200).end('followed');
      // A megabyte, and the answer never ends: only a reader that stops on its own is done.
      else if (req.url === '/huge') res.writeHead(200).write(Buffer.alloc(1024 * 1024, 'x'));
      // '/silent' never answers.
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits.length = 0;
  connections = 0;
});

const headers = { 'content-type': 'application/json', 'user-agent': 'GitScrum-Webhooks/1.0', 'webhook-id': 'msg_1' };
const body = JSON.stringify({ type: 'Project Created', name: 'Café' });
const post = (target: string, options: Parameters<typeof sendWebhook>[3] = { policy: developer }): Promise<SendResult> =>
  sendWebhook(target, headers, body, options);
/** A fake DNS that answers `address` for every name. */
const dnsAnswering =
  (...addresses: string[]): LookupAll =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('sending a webhook', () => {
  test('a 2xx answer gives its status and the start of its body', async () => {
    expect(await post(`http://127.0.0.1:${port}/ok`)).toEqual({ status: 200, response: 'thanks', durationMs: expect.any(Number) });
  });

  test('the body is POSTed with the given headers and its length in bytes', async () => {
    await post(`http://127.0.0.1:${port}/ok`);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ method: 'POST', body, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
  });

  test('a 500 answer is a status, not an error', async () => {
    expect(await post(`http://127.0.0.1:${port}/fail`)).toEqual({
      status: 500,
      response: '{"error":"boom"}',
      durationMs: expect.any(Number),
    });
  });

  test('a redirect is not followed: the 302 is the answer', async () => {
    expect(await post(`http://127.0.0.1:${port}/redirect`)).toMatchObject({ status: 302 });
    expect(hits.map((hit) => hit.path)).toEqual(['/redirect']);
  });

  test('a receiver that never answers is given up on at the deadline', async () => {
    const result = await post(`http://127.0.0.1:${port}/silent`, { policy: developer, timeoutMs: 300 });
    expect(result).toEqual({ error: 'no answer within 0.3 s', durationMs: expect.any(Number) });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2000);
  });

  test('a huge answer is read up to the limit only, keeping its status and its first 1,000 characters', async () => {
    const result = await post(`http://127.0.0.1:${port}/huge`, { policy: developer, timeoutMs: 5000 });
    expect(result).toEqual({ status: 200, response: 'x'.repeat(1000), durationMs: expect.any(Number) });
    expect(result.durationMs).toBeLessThan(2000);
  });

  test('no more of the answer than maxResponseBytes is kept', async () => {
    const result = await post(`http://127.0.0.1:${port}/huge`, { policy: developer, maxResponseBytes: 10 });
    expect(result).toEqual({ status: 200, response: 'x'.repeat(10), durationMs: expect.any(Number) });
  });

  test('a connection refused is an error that says so', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await post(`http://127.0.0.1:${closedPort}/`)).toEqual({ error: 'connection refused', durationMs: expect.any(Number) });
  });

  test('a name is resolved by the given lookup and delivered to', async () => {
    const result = await post(`http://receiver.test:${port}/ok`, { policy: developer, lookup: dnsAnswering('127.0.0.1') });
    expect(result).toMatchObject({ status: 200 });
    expect(hits[0]?.headers.host).toBe(`receiver.test:${port}`);
  });

  test('a name that does not resolve is an error naming it', async () => {
    const lookup: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await post(`http://nowhere.test:${port}/ok`, { policy: developer, lookup })).toMatchObject({
      error: 'nowhere.test does not resolve to any address',
    });
  });
});

describe('sending under the deployed rules', () => {
  test('an http URL is refused before connecting', async () => {
    expect(await post(`http://127.0.0.1:${port}/ok`, { policy: deployed })).toMatchObject({ error: 'http is not allowed; use https' });
    expect(connections).toBe(0);
  });

  test('a loopback address is refused before connecting', async () => {
    const result = await post(`https://127.0.0.1:${port}/ok`, { policy: deployed });
    expect(result).toEqual({
      error: '127.0.0.1 is a loopback address (127.0.0.0/8); webhooks deliver only to public internet addresses',
      durationMs: expect.any(Number),
    });
    expect(connections).toBe(0);
  });

  test('a name that resolves to loopback is refused before connecting (DNS rebinding)', async () => {
    const result = await post(`https://rebind.test:${port}/ok`, { policy: deployed, lookup: dnsAnswering('127.0.0.1') });
    expect(result.error).toBe(
      'rebind.test resolves to a loopback address (127.0.0.0/8); webhooks deliver only to public internet addresses',
    );
    expect(result.status).toBeUndefined();
    expect(connections).toBe(0);
  });

  test('a name that was public when saved and resolves to loopback at delivery is refused', async () => {
    let calls = 0;
    const lookup: LookupAll = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    expect(await resolutionProblem('rebind.test', deployed, lookup)).toBeUndefined();
    expect(await post(`https://rebind.test:${port}/ok`, { policy: deployed, lookup })).toMatchObject({
      error: expect.stringMatching(/^rebind\.test resolves to a loopback address/),
    });
    expect(connections).toBe(0);
  });

  test('a name with a mapped loopback address among its answers is refused', async () => {
    const result = await post(`https://mixed.test:${port}/ok`, {
      policy: deployed,
      lookup: dnsAnswering('93.184.215.14', '::ffff:127.0.0.1'),
    });
    expect(result.error).toMatch(/^mixed\.test resolves to an IPv4-mapped form of a loopback address/);
    expect(connections).toBe(0);
  });
});
