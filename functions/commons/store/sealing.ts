import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Kms from '@aws-sdk/client-kms';

/**
 * Secrets at rest (webhook signing secrets, and the saved answers that show one): envelope encryption.
 * Each value is sealed with AES-256-GCM under a data key, bound to where it is kept (`context`, e.g. the
 * webhook's workspace and id, as additional data: a sealed value copied to another item does not open);
 * the data key is kept beside it wrapped by the main key, which never leaves its vault: a KMS key of the
 * stack deployed (WEBHOOK_SECRETS_KMS_KEY_ID), a local key from a setting locally (WEBHOOK_SECRETS_KEY).
 * A container makes one data key at its first seal and unwraps each data key it meets once, so in the
 * steady state sealing and opening make no call at all. A value written before sealing (`whsec_...`)
 * opens as itself: `npm run rekey` seals those.
 */

declare const sealedBrand: unique symbol;
/**
 * A sealed value (or a legacy clear `whsec_` one), as kept: opaque (not a string to TypeScript, so it
 * cannot be signed with by mistake); only a sealer's `open` gives what it holds.
 */
export type Sealed = { readonly [sealedBrand]: true };

const PREFIX = 'sealed:v1:';
/** What a value kept in clear from before sealing looks like: nothing else opens as itself. */
const LEGACY_CLEAR = 'whsec_';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where main keys live: makes data keys (clear and wrapped) and unwraps them. `kind` is written into each sealed value. */
export interface KeyVault {
  kind: 'kms' | 'local';
  newDataKey(): Promise<{ plain: Buffer; wrapped: Buffer }>;
  unwrap(wrapped: Buffer): Promise<Buffer>;
}

/** What data keys are made for (KMS's encryption context: its key policy and its log can name it). */
export const SECRETS_KMS_CONTEXT = { service: 'project-label-service', purpose: 'secrets-at-rest' };

/**
 * KMS, its client loaded at the first data key rather than bundled (as SQS is: events/sqs.ts): deployed,
 * `require` finds the AWS SDK v3 the nodejs22.x runtime ships; locally, the repository's own.
 */
export function kmsVault(keyId: string, load = () => createRequire(import.meta.url)('@aws-sdk/client-kms') as typeof Kms): KeyVault {
  let kms: { client: Kms.KMSClient; sdk: typeof Kms } | undefined;
  const get = () => {
    if (!kms) {
      const sdk = load();
      kms = { client: new sdk.KMSClient({}), sdk };
    }
    return kms;
  };
  return {
    kind: 'kms',
    async newDataKey() {
      const { client, sdk } = get();
      const out = await client.send(
        new sdk.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: SECRETS_KMS_CONTEXT }),
      );
      return { plain: Buffer.from(out.Plaintext!), wrapped: Buffer.from(out.CiphertextBlob!) };
    },
    async unwrap(wrapped) {
      const { client, sdk } = get();
      const out = await client.send(
        new sdk.DecryptCommand({ KeyId: keyId, CiphertextBlob: wrapped, EncryptionContext: SECRETS_KMS_CONTEXT }),
      );
      return Buffer.from(out.Plaintext!);
    },
  };
}

/** A main key held in memory (the local stack's): data keys wrapped with AES-256-GCM under it. */
export function localVault(mainKey: Buffer): KeyVault {
  if (mainKey.length !== 32) throw new Error('the local main key of secrets at rest must be 32 bytes');
  return {
    kind: 'local',
    async newDataKey() {
      const plain = randomBytes(32);
      return { plain, wrapped: encrypt(mainKey, plain, 'data-key') };
    },
    async unwrap(wrapped) {
      return decrypt(mainKey, wrapped, 'data-key');
    },
  };
}

/** The vault the settings name: KMS deployed, the local key locally; none is an error at the first seal or open. */
export function vaultFromEnv(env: NodeJS.ProcessEnv = process.env): KeyVault {
  if (env.WEBHOOK_SECRETS_KMS_KEY_ID) return kmsVault(env.WEBHOOK_SECRETS_KMS_KEY_ID);
  if (env.WEBHOOK_SECRETS_KEY) return localVault(Buffer.from(env.WEBHOOK_SECRETS_KEY, 'base64'));
  const none = async (): Promise<never> => {
    throw new Error('No key to seal secrets with: WEBHOOK_SECRETS_KMS_KEY_ID (deployed) or WEBHOOK_SECRETS_KEY (local) is unset.');
  };
  return { kind: 'local', newDataKey: none, unwrap: none };
}

function encrypt(key: Buffer, plain: Buffer, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES }).setAAD(Buffer.from(context, 'utf8'));
  return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** The plaintext, or an error: too short to hold an IV and a whole tag, or a tag that does not check (another key or context, or edited). */
function decrypt(key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new SealError('is too short to be a sealed value');
  const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES }).setAAD(
    Buffer.from(context, 'utf8'),
  );
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealError('does not open: sealed under another main key or for another item, or edited');
  }
}

/** A sealed value that does not open, saying why (never what it holds). */
export class SealError extends Error {
  constructor(why: string) {
    super(`A sealed secret ${why}.`);
    this.name = 'SealError';
  }
}

/**
 * Unwrapped data keys kept, the least recently used going first: a process meets one data key per process
 * instance that sealed what it opens (each makes one), so a warm deliverer rarely unwraps at all.
 */
const MAX_CACHED_KEYS = 1024;

/** Seals and opens under one vault, with its data keys cached. */
export function sealer(vault: KeyVault) {
  let own: Promise<{ plain: Buffer; wrapped: Buffer }> | undefined;
  const unwrapped = new Map<string, Promise<Buffer>>();
  const dataKey = (wrapped: string) => {
    let key = unwrapped.get(wrapped);
    if (key) {
      // Most recently used: last in the map's order.
      unwrapped.delete(wrapped);
      unwrapped.set(wrapped, key);
    } else {
      if (unwrapped.size >= MAX_CACHED_KEYS) unwrapped.delete(unwrapped.keys().next().value!);
      key = vault.unwrap(Buffer.from(wrapped, 'base64'));
      // A failed unwrap is not kept: the next open asks again.
      key.catch(() => unwrapped.delete(wrapped));
      unwrapped.set(wrapped, key);
    }
    return key;
  };
  return {
    async seal(plain: string, context: string): Promise<Sealed> {
      own ??= vault.newDataKey().catch((error: unknown) => {
        own = undefined;
        throw error;
      });
      const { plain: key, wrapped } = await own;
      const wrappedText = wrapped.toString('base64');
      unwrapped.set(wrappedText, Promise.resolve(key));
      const body = encrypt(key, Buffer.from(plain, 'utf8'), context).toString('base64');
      return `${PREFIX}${vault.kind}:${wrappedText}:${body}` as unknown as Sealed;
    },
    /** What `sealed` holds; a legacy clear `whsec_` value is itself. A SealError for anything else that does not open. */
    async open(sealed: Sealed | string, context: string): Promise<string> {
      const text = sealed as unknown as string;
      if (!isSealed(text)) {
        if (text.startsWith(LEGACY_CLEAR)) return text;
        throw new SealError('is neither sealed nor a secret kept in clear from before');
      }
      const [kind, wrapped, body] = text.slice(PREFIX.length).split(':');
      if (kind !== vault.kind)
        throw new SealError(
          `was sealed under the ${kind} main key and this process has the ${vault.kind} one (WEBHOOK_SECRETS_KMS_KEY_ID, WEBHOOK_SECRETS_KEY)`,
        );
      if (!wrapped || !body) throw new SealError('is malformed');
      return decrypt(await dataKey(wrapped), Buffer.from(body, 'base64'), context).toString('utf8');
    },
  };
}

export const isSealed = (value: Sealed | string): boolean => storedText(value as Sealed).startsWith(PREFIX);

/** A sealed value as the table keeps it (a string attribute), and back: the only two casts of `Sealed`. */
export const storedText = (sealed: Sealed): string => sealed as unknown as string;
export const asSealed = (stored: string): Sealed => stored as unknown as Sealed;

let shared: ReturnType<typeof sealer> | undefined;
/** The process's sealer, from the settings (vaultFromEnv), made at its first use. */
export const secretsAtRest = (): ReturnType<typeof sealer> => (shared ??= sealer(vaultFromEnv()));
