import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Kms from '@aws-sdk/client-kms';
import { AWS_CLIENT_TIMEOUTS } from './awsTimeouts';

/**
 * Secrets at rest (webhook signing secrets, and the saved answers that show one): envelope encryption.
 * Each value is sealed with AES-256-GCM under a data key, bound to where it is kept (`SealContext`: its
 * workspace and item, as additional data: a sealed value copied to another item does not open); the data
 * key is made for one workspace (KMS's encryption context names it, so the key's log says whose secret
 * each use was for, and a data key does not unwrap for another workspace) and kept beside the value,
 * wrapped by the main key, which never leaves its vault: a KMS key of the stack deployed
 * (WEBHOOK_SECRETS_KMS_KEY_ID), a local key from a setting locally (WEBHOOK_SECRETS_KEY). A container
 * makes one data key per workspace at its first seal there and unwraps each data key it meets once, so
 * in the steady state sealing and opening make no call at all. A value written before sealing
 * (`whsec_...`) opens as itself: `npm run rekey` seals those; one sealed before data keys were made per
 * workspace (`sealed:v1:`) opens under the service-wide context it was made for.
 */

declare const sealedBrand: unique symbol;
/**
 * A sealed value (or a legacy clear `whsec_` one), as kept: opaque (not a string to TypeScript, so it
 * cannot be signed with by mistake); only a sealer's `open` gives what it holds.
 */
export type Sealed = { readonly [sealedBrand]: true };

/** Sealed values: v2 under a data key of the value's workspace; v1, before that, under one data key for every workspace. */
const PREFIX = 'sealed:v2:';
const PREFIX_V1 = 'sealed:v1:';
const SEALED = /^sealed:v[12]:/;
/** What a value kept in clear from before sealing looks like: nothing else opens as itself. */
const LEGACY_CLEAR = 'whsec_';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where a sealed value is kept: its workspace (what its data key is made for) and the item within it. */
export interface SealContext {
  workspace: string;
  item: string;
}

/**
 * Where main keys live: makes data keys (clear and wrapped) for a workspace and unwraps them for it (a
 * workspace of undefined: a v1 data key, made for every workspace). `kind` is written into each sealed value.
 */
export interface KeyVault {
  kind: 'kms' | 'local';
  newDataKey(workspace: string): Promise<{ plain: Buffer; wrapped: Buffer }>;
  unwrap(wrapped: Buffer, workspace: string | undefined): Promise<Buffer>;
}

/** What data keys are made for (KMS's encryption context: its key policy and its log can name it). */
export const SECRETS_KMS_CONTEXT = { service: 'project-label-service', purpose: 'secrets-at-rest' };

/** The encryption context of a workspace's data keys: the service's, and the workspace (v1 keys had none). */
const kmsContextOf = (workspace: string | undefined): Record<string, string> =>
  workspace === undefined ? SECRETS_KMS_CONTEXT : { ...SECRETS_KMS_CONTEXT, workspace };

/**
 * KMS, its client loaded at the first data key rather than bundled (as SQS is: events/sqs.ts): deployed,
 * `require` finds the AWS SDK v3 the nodejs22.x runtime ships; locally, the repository's own.
 */
export function kmsVault(keyId: string, load = () => createRequire(import.meta.url)('@aws-sdk/client-kms') as typeof Kms): KeyVault {
  let kms: { client: Kms.KMSClient; sdk: typeof Kms } | undefined;
  const get = () => {
    if (!kms) {
      const sdk = load();
      kms = { client: new sdk.KMSClient(AWS_CLIENT_TIMEOUTS), sdk };
    }
    return kms;
  };
  return {
    kind: 'kms',
    async newDataKey(workspace) {
      const { client, sdk } = get();
      const out = await client.send(
        new sdk.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: kmsContextOf(workspace) }),
      );
      return { plain: Buffer.from(out.Plaintext!), wrapped: Buffer.from(out.CiphertextBlob!) };
    },
    async unwrap(wrapped, workspace) {
      const { client, sdk } = get();
      const out = await client.send(
        new sdk.DecryptCommand({ KeyId: keyId, CiphertextBlob: wrapped, EncryptionContext: kmsContextOf(workspace) }),
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
    async newDataKey(workspace) {
      const plain = randomBytes(32);
      return { plain, wrapped: encrypt(mainKey, plain, localKeyContext(workspace)) };
    },
    async unwrap(wrapped, workspace) {
      return decrypt(mainKey, wrapped, localKeyContext(workspace));
    },
  };
}

/** What a local data key is wrapped for, as KMS's encryption context says it: its workspace (none for a v1 key). */
const localKeyContext = (workspace: string | undefined) => (workspace === undefined ? 'data-key' : `data-key\n${workspace}`);

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
 * Data keys kept (unwrapped, and made per workspace), the least recently used going first: a process meets
 * one data key per workspace and process instance that sealed what it opens, so a warm deliverer rarely
 * unwraps at all.
 */
const MAX_CACHED_KEYS = 1024;

/** A bounded map, least recently used first out; a promise that fails leaves it, so the next use asks again. */
function keyCache<V>() {
  const kept = new Map<string, Promise<V>>();
  const put = (name: string, value: Promise<V>) => {
    kept.delete(name); // most recently used: last in the map's order
    if (kept.size >= MAX_CACHED_KEYS) kept.delete(kept.keys().next().value!);
    kept.set(name, value);
    value.catch(() => kept.get(name) === value && kept.delete(name));
    return value;
  };
  return { put, get: (name: string, make: () => Promise<V>): Promise<V> => put(name, kept.get(name) ?? make()) };
}

/** The additional data a value is sealed with: its item, and for v2 its workspace too. */
const additionalData = (context: SealContext, v1: boolean) => (v1 ? context.item : `${context.workspace}\n${context.item}`);

/** Seals and opens under one vault, with its data keys cached. */
export function sealer(vault: KeyVault) {
  const own = keyCache<{ plain: Buffer; wrapped: Buffer }>();
  const unwrapped = keyCache<Buffer>();
  // Kept by workspace and wrapped key: a data key unwrapped for one workspace never opens a value bound to another.
  const unwrappedName = (wrapped: string, workspace: string | undefined) => `${workspace ?? ''}\n${wrapped}`;
  const dataKey = (wrapped: string, workspace: string | undefined) =>
    unwrapped.get(unwrappedName(wrapped, workspace), () => vault.unwrap(Buffer.from(wrapped, 'base64'), workspace));
  return {
    async seal(plain: string, context: SealContext): Promise<Sealed> {
      const { plain: key, wrapped } = await own.get(context.workspace, () => vault.newDataKey(context.workspace));
      const wrappedText = wrapped.toString('base64');
      // Its own key, kept as unwrapped: opening what it sealed asks the vault nothing.
      unwrapped.put(unwrappedName(wrappedText, context.workspace), Promise.resolve(key));
      const body = encrypt(key, Buffer.from(plain, 'utf8'), additionalData(context, false)).toString('base64');
      return `${PREFIX}${vault.kind}:${wrappedText}:${body}` as unknown as Sealed;
    },
    /** What `sealed` holds; a legacy clear `whsec_` value is itself. A SealError for anything else that does not open. */
    async open(sealed: Sealed | string, context: SealContext): Promise<string> {
      const text = sealed as unknown as string;
      if (!isSealed(text)) {
        if (text.startsWith(LEGACY_CLEAR)) return text;
        throw new SealError('is neither sealed nor a secret kept in clear from before');
      }
      const v1 = text.startsWith(PREFIX_V1);
      const [kind, wrapped, body] = text.slice(PREFIX.length).split(':');
      if (kind !== vault.kind)
        throw new SealError(
          `was sealed under the ${kind} main key and this process has the ${vault.kind} one (WEBHOOK_SECRETS_KMS_KEY_ID, WEBHOOK_SECRETS_KEY)`,
        );
      if (!wrapped || !body) throw new SealError('is malformed');
      const key = await dataKey(wrapped, v1 ? undefined : context.workspace).catch((error: unknown) => {
        // KMS refuses a data key asked for under another workspace's context, as a local key fails its tag.
        throw error instanceof SealError || (error as Error).name === 'InvalidCiphertextException'
          ? new SealError('does not open: its data key was made for another workspace, or under another main key')
          : error;
      });
      return decrypt(key, Buffer.from(body, 'base64'), additionalData(context, v1)).toString('utf8');
    },
  };
}

export const isSealed = (value: Sealed | string): boolean => SEALED.test(storedText(value as Sealed));
/** Whether it is sealed under a data key of its workspace (v2), every use of which names that workspace. */
export const isSealedForItsWorkspace = (value: Sealed | string): boolean => storedText(value as Sealed).startsWith(PREFIX);

/** A sealed value as the table keeps it (a string attribute), and back: the only two casts of `Sealed`. */
export const storedText = (sealed: Sealed): string => sealed as unknown as string;
export const asSealed = (stored: string): Sealed => stored as unknown as Sealed;

let shared: ReturnType<typeof sealer> | undefined;
/** The process's sealer, from the settings (vaultFromEnv), made at its first use. */
export const secretsAtRest = (): ReturnType<typeof sealer> => (shared ??= sealer(vaultFromEnv()));
