import { createCipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type * as Kms from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  isSealed,
  kmsVault,
  localVault,
  SealError,
  SECRETS_KMS_CONTEXT,
  type SealContext,
  sealer,
  storedText,
  vaultFromEnv,
  type KeyVault,
} from '#store/sealing';

/**
 * Secrets at rest: what a sealed value holds (nothing in clear), where it opens (only under its own
 * context and key), and what it costs (one data key per process, each wrapped key unwrapped once: no
 * call to the vault in the steady state). KMS is played by a local HTTP server speaking its JSON
 * protocol, with a main key of its own.
 */

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Where a value is kept: an item of a workspace (acme, unless said). */
const at = (item: string, workspace = 'acme'): SealContext => ({ workspace, item });

/** A vault that counts its calls. */
function counted(vault: KeyVault) {
  const calls = { newDataKey: 0, unwrap: 0 };
  return {
    calls,
    vault: {
      kind: vault.kind,
      newDataKey: (ws: string) => (calls.newDataKey++, vault.newDataKey(ws)),
      unwrap: (w: Buffer, ws: string | undefined) => (calls.unwrap++, vault.unwrap(w, ws)),
    } satisfies KeyVault,
  };
}

describe('sealed values', () => {
  const main = randomBytes(32);

  test('hold nothing of the secret in clear, and open to it under their context', async () => {
    const box = sealer(localVault(main));
    const sealed = storedText(await box.seal(SECRET, at('webhook-secret acme wh_1')));
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).toMatch(/^sealed:v2:local:/);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    expect(sealed).not.toContain('whsec_');
    expect(await box.open(sealed, at('webhook-secret acme wh_1'))).toBe(SECRET);
    // Sealed twice, two different values (a fresh nonce each time).
    expect(await box.seal(SECRET, at('webhook-secret acme wh_1'))).not.toBe(sealed);
  });

  test('do not open under another context (a sealed secret copied to another webhook), another main key, or edited', async () => {
    const box = sealer(localVault(main));
    const sealed = await box.seal(SECRET, at('webhook-secret acme wh_1'));
    await expect(box.open(sealed, at('webhook-secret acme wh_2'))).rejects.toThrow(SealError);
    await expect(box.open(sealed, at('webhook-secret other wh_1', 'other'))).rejects.toThrow(SealError);
    await expect(sealer(localVault(randomBytes(32))).open(sealed, at('webhook-secret acme wh_1'))).rejects.toThrow();
    const [kind, wrapped, body] = storedText(sealed).slice('sealed:v2:'.length).split(':') as [string, string, string];
    const bytes = Buffer.from(body, 'base64');
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 20) ^ 1, bytes.length - 20);
    await expect(box.open(`sealed:v2:${kind}:${wrapped}:${bytes.toString('base64')}`, at('webhook-secret acme wh_1'))).rejects.toThrow(
      /does not open/,
    );
    // A tag cut short (GCM would check a 4-byte one) or a body with no room for one: refused, never opened.
    const short = Buffer.from(body, 'base64').subarray(0, -12);
    await expect(box.open(`sealed:v2:${kind}:${wrapped}:${short.toString('base64')}`, at('webhook-secret acme wh_1'))).rejects.toThrow(
      SealError,
    );
    await expect(box.open(`sealed:v2:${kind}:${wrapped}:${Buffer.alloc(20).toString('base64')}`, at('c'))).rejects.toThrow(/too short/);
  });

  test('a value sealed under one kind of main key says so where another is set, instead of failing to open', async () => {
    const sealed = await sealer(localVault(main)).seal(SECRET, at('c'));
    const kms = sealer({
      kind: 'kms',
      newDataKey: () => Promise.reject(new Error('unused')),
      unwrap: () => Promise.reject(new Error('unused')),
    });
    await expect(kms.open(sealed, at('c'))).rejects.toThrow(/sealed under the local main key and this process has the kms one/);
  });

  test('only a whsec_ value opens as itself: anything else neither sealed nor a secret is refused', async () => {
    const box = sealer(localVault(main));
    for (const odd of ['', 'sealed:v3:local:a:b', 'plain text', 'sealed:v1:local:onlyone', 'sealed:v2:local:onlyone'])
      await expect(box.open(odd, at('c')), odd).rejects.toThrow(SealError);
  });

  test('a value sealed before data keys were made per workspace (v1) still opens, under the context it was made for', async () => {
    const aead = (key: Buffer, plain: Buffer, aad: string) => {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
      return Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
    };
    const dataKey = randomBytes(32);
    const v1 = `sealed:v1:local:${aead(main, dataKey, 'data-key').toString('base64')}:${aead(dataKey, Buffer.from(SECRET), 'webhook-secret acme wh_1').toString('base64')}`;
    expect(isSealed(v1)).toBe(true);
    expect(await sealer(localVault(main)).open(v1, at('webhook-secret acme wh_1'))).toBe(SECRET);
    await expect(sealer(localVault(main)).open(v1, at('webhook-secret acme wh_2'))).rejects.toThrow(SealError);
  });

  test("one data key per workspace: a data key unwrapped for one workspace never opens another's value", async () => {
    const mine = counted(localVault(main));
    const box = sealer(mine.vault);
    const acme = await box.seal(SECRET, at('same item', 'acme'));
    await box.seal(SECRET, at('same item', 'beta'));
    expect(mine.calls).toEqual({ newDataKey: 2, unwrap: 0 });
    expect(await box.open(acme, at('same item', 'acme'))).toBe(SECRET);
    await expect(box.open(acme, at('same item', 'beta'))).rejects.toThrow(SealError);
  });

  test('a value kept in clear from before sealing opens as itself', async () => {
    const box = sealer(localVault(main));
    expect(await box.open(SECRET, at('webhook-secret acme wh_1'))).toBe(SECRET);
    expect(isSealed(SECRET)).toBe(false);
  });

  test('one data key per process however many seals, and each wrapped key unwrapped once however many opens', async () => {
    const mine = counted(localVault(main));
    const box = sealer(mine.vault);
    const sealed = await Promise.all(Array.from({ length: 20 }, (_, i) => box.seal(`${SECRET}${i}`, at(`c${i}`))));
    for (const [i, s] of sealed.entries()) expect(await box.open(s, at(`c${i}`))).toBe(`${SECRET}${i}`);
    expect(mine.calls).toEqual({ newDataKey: 1, unwrap: 0 });
    // Another process (a deliverer) opening what this one sealed: one unwrap, then none.
    const theirs = counted(localVault(main));
    const other = sealer(theirs.vault);
    for (const [i, s] of sealed.entries()) expect(await other.open(s, at(`c${i}`))).toBe(`${SECRET}${i}`);
    expect(theirs.calls).toEqual({ newDataKey: 0, unwrap: 1 });
  });

  test('a vault that fails is asked again next time, not remembered failing', async () => {
    let fail = true;
    const inner = localVault(main);
    const box = sealer({
      kind: 'local',
      newDataKey: (ws) => (fail ? Promise.reject(new Error('throttled')) : inner.newDataKey(ws)),
      unwrap: (w, ws) => (fail ? Promise.reject(new Error('throttled')) : inner.unwrap(w, ws)),
    });
    await expect(box.seal(SECRET, at('c'))).rejects.toThrow('throttled');
    const sealed = await sealer(inner).seal(SECRET, at('c'));
    await expect(box.open(sealed, at('c'))).rejects.toThrow('throttled');
    fail = false;
    expect(await box.open(await box.seal(SECRET, at('c')), at('c'))).toBe(SECRET);
    expect(await box.open(sealed, at('c'))).toBe(SECRET);
  });

  test('with no key set, sealing says which settings name one', async () => {
    await expect(sealer(vaultFromEnv({})).seal(SECRET, at('c'))).rejects.toThrow(/WEBHOOK_SECRETS_KMS_KEY_ID.*WEBHOOK_SECRETS_KEY/);
    expect(() => localVault(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('KMS', () => {
  let server: Server;
  let url = '';
  const kmsKey = randomBytes(32);
  const requests: { target: string; body: Record<string, any> }[] = [];

  /** KMS's own wrapping, as far as the test needs it: AES-GCM under the key, bound to the encryption context. */
  const wrap = (plain: Buffer, context: object) => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', kmsKey, iv).setAAD(Buffer.from(JSON.stringify(context)));
    return Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
  };

  beforeAll(async () => {
    Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
    const { createDecipheriv } = await import('node:crypto');
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, any>;
        const target = String(req.headers['x-amz-target']);
        requests.push({ target, body });
        if (target === 'TrentService.GenerateDataKey') {
          res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
          const plain = randomBytes(32);
          res.end(
            JSON.stringify({
              KeyId: body.KeyId,
              Plaintext: plain.toString('base64'),
              CiphertextBlob: wrap(plain, body.EncryptionContext).toString('base64'),
            }),
          );
        } else {
          const blob = Buffer.from(body.CiphertextBlob, 'base64');
          const d = createDecipheriv('aes-256-gcm', kmsKey, blob.subarray(0, 12)).setAAD(
            Buffer.from(JSON.stringify(body.EncryptionContext)),
          );
          d.setAuthTag(blob.subarray(blob.length - 16));
          try {
            const plain = Buffer.concat([d.update(blob.subarray(12, blob.length - 16)), d.final()]);
            res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
            res.end(JSON.stringify({ KeyId: body.KeyId, Plaintext: plain.toString('base64') }));
          } catch {
            // As KMS answers a data key asked for under another encryption context than it was made for.
            res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.1' });
            res.end(JSON.stringify({ __type: 'InvalidCiphertextException', message: '' }));
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  /** The SDK as the runtime's `require` gives it, its client sent to the local KMS. */
  let loads = 0;
  const load = () => {
    loads++;
    const sdk = createRequire(import.meta.url)('@aws-sdk/client-kms') as typeof Kms;
    return {
      ...sdk,
      KMSClient: class extends sdk.KMSClient {
        constructor() {
          super({ endpoint: url });
        }
      },
    } as typeof Kms;
  };

  test('a process loads KMS at its first data key, makes one, and asks nothing more to seal and open', async () => {
    requests.length = 0;
    loads = 0;
    const box = sealer(kmsVault('arn:aws:kms:us-east-1:123456789012:key/test', load));
    expect(loads).toBe(0);
    const sealed = await box.seal(SECRET, at('webhook-secret acme wh_1'));
    for (let i = 0; i < 10; i++) expect(await box.open(sealed, at('webhook-secret acme wh_1'))).toBe(SECRET);
    expect(loads).toBe(1);
    expect(requests.map((r) => r.target)).toEqual(['TrentService.GenerateDataKey']);
    expect(requests[0]!.body).toMatchObject({
      KeyId: 'arn:aws:kms:us-east-1:123456789012:key/test',
      KeySpec: 'AES_256',
      EncryptionContext: { ...SECRETS_KMS_CONTEXT, workspace: 'acme' },
    });
  });

  test('another process (the deliverer) unwraps that data key once, with the same encryption context, then opens without KMS', async () => {
    const sealed = await sealer(kmsVault('key-1', load)).seal(SECRET, at('c'));
    requests.length = 0;
    const deliverer = sealer(kmsVault('key-1', load));
    for (let i = 0; i < 10; i++) expect(await deliverer.open(sealed, at('c'))).toBe(SECRET);
    expect(requests.map((r) => r.target)).toEqual(['TrentService.Decrypt']);
    expect(requests[0]!.body.EncryptionContext).toEqual({ ...SECRETS_KMS_CONTEXT, workspace: 'acme' });
  });

  test("each workspace's secrets are sealed under a data key of its own, named in its encryption context (the key's log says whose)", async () => {
    requests.length = 0;
    const box = sealer(kmsVault('key-1', load));
    for (const ws of ['acme', 'beta', 'acme', 'beta']) await box.seal(SECRET, at(`webhook-secret ${ws} wh_1`, ws));
    expect(requests.map((r) => [r.target, r.body.EncryptionContext.workspace])).toEqual([
      ['TrentService.GenerateDataKey', 'acme'],
      ['TrentService.GenerateDataKey', 'beta'],
    ]);
  });

  test("a value sealed for one workspace does not open for another, even where the item's name is the same: KMS refuses its data key", async () => {
    const sealed = await sealer(kmsVault('key-1', load)).seal(SECRET, at('webhook-secret same wh_1', 'acme'));
    const deliverer = sealer(kmsVault('key-1', load));
    await expect(deliverer.open(sealed, at('webhook-secret same wh_1', 'beta'))).rejects.toThrow(SealError);
    await expect(deliverer.open(sealed, at('webhook-secret same wh_1', 'beta'))).rejects.toThrow(/made for another workspace/);
    // Once its own workspace's key is unwrapped, the copy still does not open for the other.
    expect(await deliverer.open(sealed, at('webhook-secret same wh_1', 'acme'))).toBe(SECRET);
    await expect(deliverer.open(sealed, at('webhook-secret same wh_1', 'beta'))).rejects.toThrow(SealError);
  });
});
