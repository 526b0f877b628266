import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import { revokeToken } from '#domain/tokens';
import { apiUrl, call, tokenFor, uniqueWorkspace, workspaceClient } from '#support/api';

/** The local gateway must not be weaker than API Gateway, nor behave differently where it can be the same. */
function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(apiUrl());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.on('error', reject);
  });
}

describe('the local gateway', () => {
  test.each([['constructor'], ['__proto__'], ['toString'], ['hasOwnProperty'], ['valueOf']])(
    'a query parameter named %s is just a parameter',
    async (name) => {
      const c = await workspaceClient('gw');
      await c.createProject('Web');
      const res = await c.get('/projects', { [name]: 'x' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect((await c.get('/projects/web', { [name]: '1' })).status).toBe(200);
    },
  );

  test('an OPTIONS preflight is answered as the deployed API answers it', async () => {
    const res = await call('OPTIONS', '/projects-labels/bug/attach', {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('access-control-max-age')).toBe('3600');
    expect((await call('OPTIONS', '/nowhere')).status).toBe(404);
  });

  test('a path a route serves, asked with a method none of its routes takes, is a 405 listing in Allow the ones it takes; other paths stay 404', async () => {
    for (const [method, path, allow, template] of [
      ['PATCH', '/projects/web', 'GET, PUT, DELETE, OPTIONS', '/projects/{slug}'],
      ['DELETE', '/projects', 'GET, POST, OPTIONS', '/projects'],
      ['PUT', '/webhooks/wh_1/deliveries/msg_1/redeliver', 'POST, OPTIONS', '/webhooks/{id}/deliveries/{delivery_id}/redeliver'],
    ] as const) {
      // No token: like a 404, a 405 is answered before the token is checked (deployed, by a mock no authorizer guards).
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toMatchObject({ status: 405, code: 'method_not_allowed', error_code: 'METHOD_NOT_ALLOWED' });
      expect(res.body.detail).toBe(`${method} is not a method of ${template}: it takes ${allow} (the Allow header lists them).`);
    }
    const head = await raw('HEAD /projects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(head.status).toBe(405);
    expect(head.headers).toMatch(/\r\nallow: GET, POST, OPTIONS\r\n/i);
    for (const [method, path] of [
      ['PATCH', '/nowhere'],
      ['GET', '/task-labels/bug'], // only leads to /task-labels/{slug}/toggle
      ['PATCH', '/projects/web/nothing'],
    ] as const)
      expect((await call(method, path)).status, `${method} ${path}`).toBe(404);
  });

  test("Node's own 400 for a malformed request is problem+json", async () => {
    const res = await raw('GET /projects HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers.toLowerCase()).toContain('content-type: application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'bad_request' });
  });

  test("Node's own 431 for oversized headers is problem+json", async () => {
    const res = await raw(`GET /projects HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'request_header_fields_too_large' });
  });

  test('kept-alive connections stay open a minute, and the server says so (a client lets go of them first)', async () => {
    const res = await raw(`GET /projects HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
    expect(res.status).toBe(401);
    const timeout = Number(/keep-alive: timeout=(\d+)/i.exec(res.headers)?.[1]);
    expect(timeout).toBeGreaterThanOrEqual(60);
  });

  test('authorizer results are cached per token for 300 s, as API Gateway caches them', async () => {
    const ws = uniqueWorkspace('gw');
    const token = await tokenFor(ws);
    expect((await call('GET', `/projects?company_slug=${ws}`, { token })).status).toBe(200);
    await revokeToken(token.split('_')[1]!);
    // Deployed, API Gateway keeps answering from its cache until the TTL ends; so does the local gateway.
    expect((await call('GET', `/projects?company_slug=${ws}`, { token })).status).toBe(200);
    const fresh = await tokenFor(ws);
    await revokeToken(fresh.split('_')[1]!);
    expect((await call('GET', `/projects?company_slug=${ws}`, { token: fresh })).status).toBe(401);
  });
});
