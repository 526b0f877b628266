import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The cursor MAC key of a local run: kept in `<dataDir>/cursor.key` (created on first use, readable
 * by the owner only) so cursors stay valid across restarts; a fresh random one without a data dir.
 * Deployed, the stack generates the key (lib/cdk/service-stack.ts).
 */
export function localCursorKey(dataDir: string | undefined): string {
  if (!dataDir) return randomBytes(32).toString('base64url');
  return keptKey(dataDir, 'cursor.key', 'base64url');
}

/**
 * The main key of a local run's secrets at rest (WEBHOOK_SECRETS_KEY: functions/commons/store/sealing.ts),
 * kept in `<dataDir>/webhook-secrets.key` like the cursor key, so that `npm start` after a restart and
 * the tools beside it (`npm run invoke`, `rekey`, ...) open what it sealed. Deployed, a KMS key of the
 * stack holds it instead.
 */
export function localWebhookSecretsKey(dataDir: string): string {
  return keptKey(dataDir, 'webhook-secrets.key', 'base64');
}

/**
 * A main key for secrets at rest that lives as long as one process and what it starts (the benchmarks,
 * the capacity model, a test run): nothing they seal outlives them. The same shape as the kept one.
 */
export const throwawayWebhookSecretsKey = (): string => randomBytes(32).toString('base64');

/** 32 random bytes kept in `<dataDir>/<name>` (made at the first call, readable by the owner only). */
function keptKey(dataDir: string, name: string, encoding: 'base64' | 'base64url'): string {
  const file = join(dataDir, name);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // Written whole under another name, then linked into place: a process starting beside this one reads
    // the key or no file, never half of one; if another made it first, its key is the one.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, randomBytes(32).toString(encoding), { mode: 0o600 });
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(draft);
    }
  }
  return readFileSync(file, 'utf8').trim();
}
