import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { matchPath } from '#http/route';
import { routes } from '#http/routes';
import { toAuthorizerContext } from '#http/principal';
import { lambdaContext, loadHandler, proxyEvent, type ProxyHandler } from '#local/lambdaEvents';
import { repoRoot } from '#lib/paths';
import { readableLogLine } from '#local/logLines';
import { TransactionCancelled } from '#store/errors';
import { withOptimisticRetry } from '#store/transactions';
import { routeOf } from '#observability/service';
import { sampleProjectItem } from '#support/items';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';

// Faults a real database cannot produce on demand, and what the logs and metrics say of them. The
// logger and metrics read their settings when first used: turned on here, before any handler loads.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const ddb = mockClient(DynamoDBDocumentClient);
let written: string[] = [];
const writes = { stdout: process.stdout.write, stderr: process.stderr.write };

beforeAll(() => {
  // Powertools writes each line with one write() to stdout (metrics, INFO) or stderr (WARN, ERROR).
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].write = ((chunk: string | Uint8Array) => {
      written.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    }) as typeof process.stdout.write;
  }
});
afterEach(() => {
  ddb.reset();
  written = [];
});
afterAll(() => {
  process.stdout.write = writes.stdout;
  process.stderr.write = writes.stderr;
  ddb.restore();
});

const route = (name: string) => routes.find((r) => r.name === name)!;
const fixture = { ws: 'acme-corp', project: 'website-redesign', label: 'bug', task: 'task-1' };
const parsed = () => written.map((l) => JSON.parse(l) as Record<string, any>);
const metricsLine = () => parsed().find((l) => '_aws' in l && 'Requests' in l)!;
const logLine = () => parsed().find((l) => typeof l.message === 'string' && l.message.startsWith('request'))!;
const awsError = (name: string, extra: object = {}) => Object.assign(new Error(`${name}: detail`), { name, $metadata: {}, ...extra });

describe('a request that fails', () => {
  test('a throttled database: a 503, logged as a warning and counted as Unavailable and 5xx', async () => {
    ddb.onAnyCommand().rejects(awsError('ProvisionedThroughputExceededException'));
    const res = await invokeRoute(route('get-project'), sampleRequest(route('get-project'), fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(503);
    expect(logLine()).toMatchObject({ level: 'WARN', route: 'get-project', status: 503, workspace: 'acme-corp', token_id: 'test-token' });
    expect(metricsLine()).toMatchObject({ route: 'get-project', Requests: 1, Status5xx: 1, Unavailable: 1 });
  });

  test('an unexpected error: a 500 whose log line carries the error and its cause, never the response', async () => {
    const cause = new Error('socket hang up');
    ddb.onAnyCommand().rejects(Object.assign(awsError('ValidationException'), { cause }));
    const res = await invokeRoute(route('get-project'), sampleRequest(route('get-project'), fixture), principalFor(fixture.ws));
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('socket hang up');
    // Even an unexpected failure's answer carries the standard headers, with the id the log line has.
    expect(res.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    expect(res.headers?.['X-Request-Id']).toBe(JSON.parse(res.body).request_id);
    const line = logLine();
    expect(line).toMatchObject({ level: 'ERROR', message: 'request failed', status: 500, request_id: res.headers?.['X-Request-Id'] });
    expect(line.error).toMatchObject({ name: 'ValidationException', message: 'ValidationException: detail' });
    expect(line.error.stack).toContain('ValidationException');
    expect(line.error.cause).toMatchObject({ name: 'Error', message: 'socket hang up' });
    expect(metricsLine()).toMatchObject({ Requests: 1, Status5xx: 1 });
    expect(metricsLine().Unavailable).toBeUndefined();
  });

  test('conflict retries the store makes are published with the invocation that made them', async () => {
    let round = 0;
    await withOptimisticRetry(async () => {
      if (round++ < 2) throw new TransactionCancelled(new Map([['project', 'TransactionConflict']]));
      return 'done';
    });
    ddb.on(GetCommand).resolves({ Item: sampleProjectItem() });
    const res = await invokeRoute(route('get-project'), sampleRequest(route('get-project'), fixture), principalFor(fixture.ws));
    expect(res.statusCode, res.body).toBe(200);
    expect(metricsLine()).toMatchObject({ route: 'get-project', Requests: 1, Status2xx: 1, ConflictRetries: 2 });
    // Published once: the next invocation starts from zero.
    written = [];
    await invokeRoute(route('get-project'), sampleRequest(route('get-project'), fixture), principalFor(fixture.ws));
    expect(metricsLine().ConflictRetries).toBeUndefined();
  });
});

describe('the correlation id', () => {
  test("is found whatever the spelling of its header (API Gateway keeps the client's case) and echoed", async () => {
    ddb.on(GetCommand).resolves({ Item: sampleProjectItem() });
    const r = route('get-project');
    const handler = await loadHandler<ProxyHandler>(repoRoot, r.handler);
    const req = sampleRequest(r, fixture);
    const principal = principalFor(fixture.ws);
    for (const header of ['X-Correlation-ID', 'x-correlation-id', 'X-CORRELATION-ID']) {
      written = [];
      const event = proxyEvent({
        route: r,
        method: r.method,
        path: req.path,
        pathParameters: matchPath(r.path, req.path) ?? {},
        query: new URLSearchParams(req.query),
        headers: { [header]: `Case-${header}` },
        body: null,
        authorizer: { principalId: principal.tokenId, ...toAuthorizerContext(principal) },
      });
      const res = await handler(event, lambdaContext(r.name));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers?.['X-Correlation-Id']).toBe(`Case-${header}`);
      expect(logLine()).toMatchObject({ correlation_id: `Case-${header}` });
    }
  });
});

describe('the authorizer', () => {
  const authorize = async (secretChar: string) => {
    const { handler } = await import('../../functions/authorizer/handler.ts');
    const token = `pls_${'a'.repeat(15)}${secretChar}_${secretChar.repeat(43)}`;
    const event = {
      type: 'TOKEN' as const,
      authorizationToken: `Bearer ${token}`,
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/dev/GET/projects',
    };
    return handler(event, lambdaContext('authorizer'));
  };
  const authorizerMetrics = () => parsed().find((l) => '_aws' in l && l.route === 'authorizer')!;

  test('a token it cannot check (the table failing) counts as an authorizer failure, not as a refusal', async () => {
    ddb.on(GetCommand).rejects(awsError('InternalServerError'));
    await expect(authorize('b')).rejects.toThrow();
    expect(authorizerMetrics()).toMatchObject({ AuthorizerFailures: 1 });
    expect(authorizerMetrics()).not.toHaveProperty('TokensRefused');
    expect(parsed().find((l) => l.message === 'authorizer failed')).toMatchObject({ level: 'ERROR' });
  });

  test('an unknown token is refused with a Deny saying why (the 401 reads it), counted as refused, not as a failure', async () => {
    ddb.on(GetCommand).resolves({});
    const refused = await authorize('c');
    expect(refused.policyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Resource: expect.stringMatching(/\/dev\/\*$/) }),
    ]);
    expect(refused.context).toEqual({
      detail: expect.stringMatching(/^This token is not known to this API, or was revoked .*npm run token -- create/),
    });
    expect(refused.usageIdentifierKey).toBeUndefined();
    // Read twice, the second strongly: a token made a moment ago is not refused (and the Deny cached) for want of it.
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.ConsistentRead)).toEqual([false, true]);
    expect(authorizerMetrics()).toMatchObject({ TokensRefused: 1 });
    expect(authorizerMetrics()).not.toHaveProperty('AuthorizerFailures');
    expect(parsed().find((l) => l.message === 'token refused')).toMatchObject({ level: 'INFO' });
  });
});

describe('log levels', () => {
  test("Powertools' own level wins over Lambda's, so that a stage's level and its debug sampling hold", async () => {
    const { spawnSync } = await import('node:child_process');
    const probe = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', '-e', "const { logger } = await import('#observability/log'); process.stdout.write(logger.getLevelName());"],
        { cwd: repoRoot, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
      ).stdout;
    expect(probe({ AWS_LAMBDA_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOG_LEVEL: 'INFO' })).toBe('INFO');
    expect(probe({ AWS_LAMBDA_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOG_LEVEL: 'DEBUG' })).toBe('DEBUG');
    // Without a level of its own, Powertools follows Lambda's.
    expect(probe({ AWS_LAMBDA_LOG_LEVEL: 'WARN' })).toBe('WARN');
  });
});

describe('the route of a function', () => {
  test('deployed, its name less the service prefix; locally, its name', () => {
    const saved = process.env.POWERTOOLS_SERVICE_NAME;
    try {
      process.env.POWERTOOLS_SERVICE_NAME = 'project-label-service-prod';
      expect(routeOf('project-label-service-prod-get-project')).toBe('get-project');
      expect(routeOf('get-project')).toBe('get-project');
      expect(routeOf('project-label-service-dev-get-project')).toBe('project-label-service-dev-get-project');
    } finally {
      if (saved === undefined) delete process.env.POWERTOOLS_SERVICE_NAME;
      else process.env.POWERTOOLS_SERVICE_NAME = saved;
    }
  });
});

describe('npm start shows log lines readably', () => {
  test('time, level, message and the fields, then the error and its causes', () => {
    const cause = { name: 'Error', message: 'socket hang up', stack: 'Error: socket hang up\n    at a (x.js:1:1)' };
    const text = readableLogLine({
      level: 'ERROR',
      message: 'request failed',
      timestamp: '2026-11-23T10:00:01.234Z',
      service: 'svc',
      route: 'get-project',
      status: 500,
      error: { name: 'ValidationException', message: 'bad', stack: 'ValidationException: bad\n    at b (y.js:2:2)', cause },
    });
    expect(text.split('\n')).toEqual([
      '10:00:01.234 ERROR request failed  route=get-project status=500',
      '    ValidationException: bad',
      '        at b (y.js:2:2)',
      '      caused by:',
      '      Error: socket hang up',
      '          at a (x.js:1:1)',
    ]);
  });
});
