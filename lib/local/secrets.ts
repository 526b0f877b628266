import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The cursor MAC key of a local run: kept in `<dataDir>/cursor.key` (created on first use, readable
 * by the owner only) so cursors stay valid across restarts; a fresh random one without a data dir.
 * Deployed, the stack generates the key (lib/cdk/service-stack.ts).
 */
export function localCursorKey(dataDir: string | undefined): string {
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'cursor.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
