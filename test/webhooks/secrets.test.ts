import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { writeWebhook } from '#local/sampleWebhooks';
import { db } from '#store/client';
import { createCipheriv, randomBytes } from 'node:crypto';
import { asSealed, localVault, sealer } from '#store/sealing';
import { secretContext } from '#webhooks/subscriptions';
import { tableName } from '#store/table';
import { newSecret } from '#webhooks/signing';
import { call, workspaceClient, type WorkspaceClient } from '#support/api';

/**
 * Secrets at rest, through the local API: a webhook's secret is shown in clear twice (its create, a
 * rotation) and kept nowhere in clear: not in its item, not in the saved answers its Idempotency-Key
 * replays (which still replay it), not beside the secrets it replaced. A secret kept in clear from before
 * keeps working until `npm run rekey` seals it, and after.
 */
const URL_OK = 'https://hooks.example.com/receiver';

/** Every item of this test file's database (its own, new and small), as stored. */
async function storedText(): Promise<string> {
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(items, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}

const post = (c: WorkspaceClient, path: string, body: unknown, key: string) =>
  call('POST', c.q(path), { token: c.token, body, headers: { 'Idempotency-Key': key } });

test('a secret is shown at its create and rotation, replayed by their keys, and kept nowhere in clear', async () => {
  const c = await workspaceClient('sealed');
  const created = await post(c, '/webhooks', { url: URL_OK, events: ['*'] }, `create-${c.ws}`);
  expect(created.status).toBe(201);
  const first = created.body.data.secret as string;
  expect(first).toMatch(/^whsec_/);
  const replayed = await post(c, '/webhooks', { url: URL_OK, events: ['*'] }, `create-${c.ws}`);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.data.secret).toBe(first);

  const id = created.body.data.id as string;
  const own = newSecret();
  const rotated = await post(c, `/webhooks/${id}/rotate-secret`, { secret: own }, `rotate-${c.ws}`);
  expect(rotated.status).toBe(200);
  expect(rotated.body.data.secret).toBe(own);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret: own }, `rotate-${c.ws}`)).body.data.secret).toBe(own);
  const second = (await post(c, `/webhooks/${id}/rotate-secret`, {}, `rotate-again-${c.ws}`)).body.data.secret as string;

  const stored = await storedText();
  for (const secret of [first, own, second]) {
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length, 30));
  }
  expect(stored).not.toContain('whsec_');
  expect(stored).toContain('sealed:v2:');
  // The sealed secrets still open where they are used: the first two sign beside the newest, so neither may be given again.
  for (const secret of [first, own, second]) {
    const again = await post(c, `/webhooks/${id}/rotate-secret`, { secret }, `reuse-${secret.slice(-12)}`);
    expect(again.status, secret).toBe(422);
  }
});

test('a secret kept in clear from before keeps working, check:table names it, and npm run rekey seals it', async () => {
  const c = await workspaceClient('clear');
  const secret = newSecret();
  const id = `wh_${c.ws.replace(/\W/g, '').slice(-24)}`;
  await writeWebhook({ id, workspace: c.ws, url: URL_OK, secret: asSealed(secret) });
  expect(await storedText()).toContain(secret);
  expect((await checkTable([c.ws])).violations).toEqual([expect.stringContaining(`webhook ${c.ws}/${id} keeps a signing secret in clear`)]);
  // Opened as it is: the service knows it as this webhook's secret.
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse-before')).status).toBe(422);

  expect(await rekeyTable({ dryRun: true, workspaces: [c.ws] })).toMatchObject({ secrets: 1, conflicts: [] });
  expect(await storedText()).toContain(secret);
  expect(await rekeyTable({ workspaces: [c.ws] })).toMatchObject({ secrets: 1, conflicts: [] });
  expect(await storedText()).not.toContain(secret);
  expect((await checkTable([c.ws])).violations).toEqual([]);
  expect(await rekeyTable({ workspaces: [c.ws] })).toMatchObject({ secrets: 0 });
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse-after')).status).toBe(422);
  // A rotation now keeps the old one sealed beside the new one.
  expect((await post(c, `/webhooks/${id}/rotate-secret`, {}, 'rotate')).status).toBe(200);
  expect(await storedText()).not.toContain(secret);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse-rotated')).status).toBe(422);
});

test('a secret sealed before data keys were per workspace (v1) keeps working, check:table names it, and npm run rekey reseals it under a data key of its workspace', async () => {
  const c = await workspaceClient('v1-secret');
  const secret = newSecret();
  const id = `wh_${c.ws.replace(/\W/g, '').slice(-24)}`;
  // As the version before sealed it: one data key for every workspace, the value bound to its item alone.
  const aead = (key: Buffer, plain: Buffer, aad: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString('base64');
  };
  const dataKey = randomBytes(32);
  const main = Buffer.from(process.env.WEBHOOK_SECRETS_KEY!, 'base64');
  const v1 = `sealed:v1:local:${aead(main, dataKey, 'data-key')}:${aead(dataKey, Buffer.from(secret), secretContext({ workspace: c.ws, id }).item)}`;
  await writeWebhook({ id, workspace: c.ws, url: URL_OK, secret: asSealed(v1) });
  expect((await checkTable([c.ws])).violations).toEqual([
    expect.stringContaining(`webhook ${c.ws}/${id} keeps a signing secret sealed before data keys were per workspace`),
  ]);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse-before')).status).toBe(422);
  expect(await rekeyTable({ workspaces: [c.ws] })).toMatchObject({ secrets: 1, conflicts: [] });
  const stored = (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhook(c.ws, id), ConsistentRead: true }))).Item!;
  expect(String(stored.secret)).toMatch(/^sealed:v2:local:/);
  expect((await checkTable([c.ws])).violations).toEqual([]);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse-after')).status).toBe(422);
});

test('rotating a webhook whose secret is kept in clear seals the one it keeps signing beside the new one', async () => {
  const c = await workspaceClient('clear-rotate');
  const secret = newSecret();
  const id = `wh_${c.ws.replace(/\W/g, '').slice(-24)}`;
  await writeWebhook({ id, workspace: c.ws, url: URL_OK, secret: asSealed(secret) });
  expect((await post(c, `/webhooks/${id}/rotate-secret`, {}, 'rotate')).status).toBe(200);
  expect(await storedText()).not.toContain(secret);
  expect((await checkTable([c.ws])).violations).toEqual([]);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret }, 'reuse')).status).toBe(422);
});

test('a webhook whose secret no longer opens (sealed under a main key since replaced) can still be given a new one', async () => {
  const c = await workspaceClient('lost-key');
  const id = `wh_${c.ws.replace(/\W/g, '').slice(-24)}`;
  const elsewhere = await sealer(localVault(randomBytes(32))).seal(newSecret(), secretContext({ workspace: c.ws, id }));
  await writeWebhook({ id, workspace: c.ws, url: URL_OK, secret: elsewhere });
  const own = newSecret();
  const rotated = await post(c, `/webhooks/${id}/rotate-secret`, { secret: own, expire_previous_now: true }, 'own');
  expect(rotated.status, rotated.text).toBe(200);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, { secret: own }, 'own-again')).status).toBe(422);
  expect((await post(c, `/webhooks/${id}/rotate-secret`, {}, 'generated')).status).toBe(200);
});

test('a sealed secret copied onto another webhook, of its workspace or of another, does not open there', async () => {
  const [x, y] = [await workspaceClient('copied'), await workspaceClient('copied')];
  const create = async (c: WorkspaceClient, key: string) => (await post(c, '/webhooks', { url: URL_OK, events: ['*'] }, key)).body.data;
  const a = await create(x, `a-${x.ws}`);
  const [b, c] = [await create(x, `b-${x.ws}`), await create(y, `c-${y.ws}`)];
  const itemOf = async (ws: string, id: string) =>
    (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhook(ws, id), ConsistentRead: true }))).Item!;
  const sealedA = (await itemOf(x.ws, a.id)).secret as string;
  for (const [ws, id] of [
    [x.ws, b.id],
    [y.ws, c.id],
  ] as const) {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(ws, id),
        UpdateExpression: 'SET secret = :s',
        ExpressionAttributeValues: { ':s': sealedA },
      }),
    );
  }
  // A rotation refuses a secret the webhook signs with now (422): so it is, where the sealed value opens.
  expect((await post(x, `/webhooks/${a.id}/rotate-secret`, { secret: a.secret }, 'a-again')).status).toBe(422);
  // Copied, it opens to nothing: B's and C's secrets are unreadable, so A's is not theirs and may be given.
  expect((await post(x, `/webhooks/${b.id}/rotate-secret`, { secret: a.secret }, 'b-takes-a')).status).toBe(200);
  expect((await post(y, `/webhooks/${c.id}/rotate-secret`, { secret: a.secret }, 'c-takes-a')).status).toBe(200);
});
