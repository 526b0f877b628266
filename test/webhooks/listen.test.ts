import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { newSecret, signedHeaders } from '#webhooks/signing';
import { toolArgv } from '#support/tools';

/** `npm run webhooks:listen`: verifies each delivery with the secret it is given, prints it, refuses the rest. */
const secret = newSecret();
let child: ChildProcess;
let output = '';
let url = '';

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawn(process.execPath, await toolArgv('bin/webhooks-listen.ts', args), {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Output once `expected` shows in it (the listener prints as it goes). */
async function printed(expected: string): Promise<string> {
  while (!output.includes(expected)) await new Promise((r) => setTimeout(r, 20));
  return output;
}

beforeAll(async () => {
  // The secret from the environment, as the docs give it (an argument would be printed by npm).
  child = await run(['--port', '0'], { WEBHOOK_SECRET: secret });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  url = /Listening for webhook deliveries on (\S+)/.exec(await printed('Listening'))![1]!;
});
afterAll(() => child?.kill());

const body = JSON.stringify({ type: 'Project Created', timestamp: '2026-11-25T10:00:00.000Z', data: { event_id: 'e-1' } });

describe('webhooks:listen', () => {
  test('a delivery signed with its secret is answered 204 and printed', async () => {
    const headers = signedHeaders([secret], 'msg_0001', Math.floor(Date.now() / 1000), body);
    const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(204);
    expect(await printed('msg_0001')).toMatch(/Project Created\s+msg_0001\s+\{"event_id":"e-1"\}/);
  });

  test('a delivery signed with another secret, or too old, is refused with 401 and says why', async () => {
    const forged = signedHeaders([newSecret()], 'msg_0002', Math.floor(Date.now() / 1000), body);
    expect((await fetch(url, { method: 'POST', headers: forged, body })).status).toBe(401);
    const stale = signedHeaders([secret], 'msg_0003', Math.floor(Date.now() / 1000) - 3600, body);
    expect((await fetch(url, { method: 'POST', headers: stale, body })).status).toBe(401);
    expect((await printed('refused')).match(/refused POST/g)?.length).toBeGreaterThanOrEqual(1);
    await printed('answered 401');
    expect(output).not.toContain('msg_0002  {');
  });

  test("deliveries that keep failing to verify make it say the secret may not be the webhook's; a secret from the environment is not warned about", async () => {
    for (const id of ['msg_0004', 'msg_0005', 'msg_0006']) {
      const forged = signedHeaders([newSecret()], id, Math.floor(Date.now() / 1000), body);
      expect((await fetch(url, { method: 'POST', headers: forged, body })).status).toBe(401);
    }
    expect(await printed('in a row did not verify with this secret')).toMatch(/it may not be this webhook's, or it was rotated/);
    expect(output).not.toContain('given as an argument');
  });

  test('--help prints the usage and exits 0; an unknown option or a missing secret is one sentence and a non-zero exit', async () => {
    const exit = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const argv = await toolArgv('bin/webhooks-listen.ts', args);
      return new Promise<{ code: number | null; text: string }>((resolve) => {
        const c = spawn(process.execPath, argv, {
          cwd: repoRoot,
          env: { ...process.env, WEBHOOK_SECRET: '', ...env },
        });
        let text = '';
        c.stdout.on('data', (d: Buffer) => (text += d.toString()));
        c.stderr.on('data', (d: Buffer) => (text += d.toString()));
        c.on('exit', (code) => resolve({ code, text }));
      });
    };
    const help = await exit(['--help']);
    expect(help.code).toBe(0);
    expect(help.text).toContain('usage: npm run webhooks:listen');
    const unknown = await exit(['--bogus']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.text).toContain('Unknown option --bogus');
    const missing = await exit([]);
    expect(missing.code).not.toBe(0);
    expect(missing.text).toContain("Give the webhook's secret");
  });
});
