import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { localAccessKey } from '#local/database';
import { portAnswers } from '#local/stackDiscovery';
import { repoRoot } from '#lib/paths';
import { call } from '#support/api';
import { startLocalApi, type LocalApi } from '#support/local-api';
import { freePort } from '#support/ports';
import { runTool, type Ran } from '#support/tools';

/**
 * The first hour at the command line, as a new user spends it: `npm start` on ports of their choosing,
 * then the CLIs with nothing exported (they find the running stack themselves and say which one),
 * samples that never touch the user's data, and mistakes answered in one sentence (no stack trace).
 */
/** A CLI of bin/ with only what a new user's shell holds (no PORT or DYNAMODB_PORT): test/support/tools.ts. */
const cli = (script: string, args: string[], env: Record<string, string> = {}): Promise<Ran> => runTool(`bin/${script}.ts`, args, env);

/** One sentence, no stack trace. */
function expectPlainError(res: Ran, says: RegExp): void {
  expect(res.code, res.stdout + res.stderr).toBeGreaterThan(0);
  expect(res.stderr).toMatch(says);
  expect(res.stderr).not.toMatch(/\n\s+at |ECONNREFUSED|EADDRINUSE|Error:/);
}

describe('a stack on ports of the user’s choosing', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-first-hour-'));
  let api: LocalApi;
  let token: string;
  const env = { DATA_DIR: dataDir };
  const q = (path: string, params: Record<string, string> = {}) =>
    `${path}?${new URLSearchParams({ company_slug: 'acme-corp', ...params })}`;
  const send = (method: string, path: string, body?: unknown) =>
    call(method, path, { base: api.url, token, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    api = await startLocalApi({ args: ['--in-memory'], env, asNpmRuns: true });
    token = /pls_[A-Za-z0-9_-]+/.exec(api.output())![0];
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the OpenAPI document points "Try it out" at the server that serves it', async () => {
    const doc = (await call('GET', '/openapi.json', { base: api.url })).body as { servers: { url: string }[] };
    const target = new URL(doc.servers[0]!.url, `${api.url}/openapi.json`);
    expect(target.origin).toBe(api.url);
  });

  test('the start says where webhooks may deliver, and the setting that changes it', () => {
    expect(api.output()).toContain('Webhooks deliver to public https addresses only (start with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true');
  });

  test('the CLIs find the running stack by themselves and say which one', async () => {
    const listed = await cli('token', ['list', '--workspace', 'acme-corp'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`API ${api.url}`);
    expect(listed.stdout).toMatch(/active/);
    const emitted = await cli('emit', ['Task Created', '{"company_slug":"acme-corp","project_slug":"nowhere","task_uuid":"t1"}'], env);
    expect(emitted.code, emitted.stderr).toBe(0);
    expect(emitted.stderr).toContain(api.url);
  });

  test('invoking samples, the destructive ones included, leaves the user’s data and event log as they were', async () => {
    expect((await send('POST', '/projects', { company_slug: 'acme-corp', name: 'Website Redesign' })).status).toBe(201);
    expect((await send('POST', q('/projects-labels'), { title: 'Bug', color: 'FF0000' })).status).toBe(201);
    expect((await send('POST', q('/projects-labels'), { title: 'Obsolete', color: '00FF00' })).status).toBe(201);
    expect(
      (await send('POST', q('/projects-labels/bug/attach', { project_slug: 'website-redesign' }), { task_uuids: ['t1', 't2'] })).status,
    ).toBe(200);
    await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
    const state = async () =>
      Promise.all([
        send('GET', q('/projects')).then((r) => r.body.data.map((p: { slug: string; stats?: unknown }) => p.slug)),
        send('GET', q('/projects-labels')).then((r) => r.body.data),
        send('GET', q('/projects-labels/bug/tasks', { project_slug: 'website-redesign' })).then((r) => r.body.data),
      ]);
    const before = await state();
    const eventsFile = join(dataDir, 'events.jsonl');
    const eventsBefore = existsSync(eventsFile) ? readFileSync(eventsFile, 'utf8') : '';
    const ran = await Promise.all(
      ['stream-processor', 'inbound-consumer', 'delete-label', 'delete-project', 'detach-label'].map((fn) => cli('invoke', [fn], env)),
    );
    for (const r of ran) {
      expect(r.code, r.stderr).toBe(0);
      // The function's answer alone (the sandbox and its log lines are said with --verbose).
      expect(r.stderr).toBe('');
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
    // The inbound sample does what docs/events.md says: its four events counted, the malformed one dead-lettered.
    expect(JSON.parse(ran[1]!.stdout).counts).toEqual({
      applied: 4,
      unchanged: 0,
      unknown_project: 0,
      before_project: 0,
      malformed: 1,
      failed: 0,
    });
    await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
    expect(await state()).toEqual(before);
    expect(existsSync(eventsFile) ? readFileSync(eventsFile, 'utf8') : '').toBe(eventsBefore);
    // Every sandbox went with its run.
    const db = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${api.dynamodbPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: localAccessKey(), secretAccessKey: 'local' },
    });
    expect((await db.send(new ListTablesCommand({}))).TableNames!.filter((t) => t.startsWith('invoke-sandbox'))).toEqual([]);
    db.destroy();
  });

  test('a second npm start on the same data, or on a port in use, says so in one sentence; a port it suggests is free', async () => {
    const again = await cli('start', [], { ...env, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()) });
    expectPlainError(again, /already running .* \(pid \d+, API http:\/\/127\.0\.0\.1:\d+\): stop it first/);
    // In memory beside it, on the same data folder: only the ports matter (no DATA_DIR asked for).
    const port = Number(new URL(api.url).port);
    const suggested = (ran: Ran, name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(ran.stderr)![1]);
    // The port after the API's is the DynamoDB Local's own: the suggestion skips it.
    const taken = await cli('start', ['--in-memory'], { ...env, PORT: String(port), DYNAMODB_PORT: String(port + 1) });
    expectPlainError(taken, new RegExp(`Port ${port} is in use .*set PORT`));
    expect(taken.stderr).not.toContain('DATA_DIR');
    expect(suggested(taken, 'PORT')).toBeGreaterThan(port + 1);
    expect(await portAnswers(suggested(taken, 'PORT'))).toBe(false);
    const dbTaken = await cli('start', ['--in-memory'], {
      ...env,
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(api.dynamodbPort),
    });
    expectPlainError(dbTaken, new RegExp(`Port ${api.dynamodbPort} is in use .*set DYNAMODB_PORT`));
    expect(await portAnswers(suggested(dbTaken, 'DYNAMODB_PORT'))).toBe(false);
    const same = String(await freePort());
    expectPlainError(
      await cli('start', ['--in-memory'], { ...env, PORT: same, DYNAMODB_PORT: same }),
      /PORT and DYNAMODB_PORT are both \d+/,
    );
  });

  test('revoking a token says the authorizer may accept it for its cache time', async () => {
    const created = await cli(
      'token',
      ['create', '--workspace', 'acme-corp', '--name', 'Temp', '--username', 'temp', '--all-scopes', '--no-expiry', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const revoked = await cli('token', ['revoke', id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(/300 s/);
  });
});

describe('mistakes at the command line', () => {
  const nowhere = mkdtempSync(join(tmpdir(), 'pls-nowhere-'));
  afterAll(() => rmSync(nowhere, { recursive: true, force: true }));

  test('with no database running, the token CLI and invoke say so (not ECONNREFUSED, not a 503)', async () => {
    const env = { DATA_DIR: nowhere, DYNAMODB_PORT: String(await freePort()) };
    expectPlainError(await cli('token', ['list', '--workspace', 'acme-corp'], env), /No DynamoDB Local answers on port \d+.*npm start/);
    expectPlainError(await cli('invoke', ['get-project'], env), /No DynamoDB Local answers on port \d+.*npm start/);
    expectPlainError(await cli('check-table', [], env), /No DynamoDB Local answers/);
  });

  test('emit refuses an event type it does not know, listing the known ones, or the one meant', async () => {
    const [far, near] = await Promise.all(
      ['Task Exploded', 'task complete'].map((type) => cli('emit', [type, '{"company_slug":"acme-corp"}'], { DATA_DIR: nowhere })),
    );
    expectPlainError(far!, /"Task Exploded" is not an event .* Task Created, Task Completed/);
    expectPlainError(near!, /^"task complete" is not an event this service takes in; did you mean "Task Completed"\?\n$/);
  });

  test('emit refuses the service’s own source (the rule never takes it in)', async () => {
    const res = await cli('emit', ['Task Created', '{"company_slug":"acme-corp"}', '--source', 'project-label-service'], {
      DATA_DIR: nowhere,
    });
    expectPlainError(res, /ignores events from its own source "project-label-service"/);
  });

  test('invoke of an event file that is not JSON says so before touching any database', async () => {
    const bad = join(nowhere, 'broken.json');
    writeFileSync(bad, '{"resource": ');
    expectPlainError(await cli('invoke', ['get-project', bad], { DATA_DIR: nowhere }), /broken\.json is not a JSON event/);
  });

  test('invoke of a function that does not exist names the one meant, or the ones that exist', async () => {
    const [near, far] = await Promise.all(['get-projects', 'frobnicate'].map((fn) => cli('invoke', [fn], { DATA_DIR: nowhere })));
    expectPlainError(near!, /^No function named "get-projects": did you mean get-project\?\n$/);
    expectPlainError(far!, /No function named "frobnicate"; the known ones are: .*get-project/);
  });

  test.each([
    'start',
    'token',
    'invoke',
    'emit',
    'check-table',
    'repair',
    'replay',
    'rekey',
    'follow-events',
    'soak',
    'bench',
    'generate-events',
    'preflight',
  ])('%s --help prints its usage, does nothing else and exits 0', async (script) => {
    const samples = readdirSync(join(repoRoot, 'events')).map((f) => statSync(join(repoRoot, 'events', f)).mtimeMs);
    const res = await cli(script, ['--help'], { DATA_DIR: nowhere });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/usage:\s+npm (start|run )/);
    // Every option is explained, --seed too.
    if (script === 'invoke') expect(res.stdout).toMatch(/^ {2}--seed {7}against a deployed table .* create what the samples act on/m);
    // generate-events --help writes no sample; bench --help measures nothing (it would take minutes).
    expect(readdirSync(join(repoRoot, 'events')).map((f) => statSync(join(repoRoot, 'events', f)).mtimeMs)).toEqual(samples);
  });
});
