import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (handlers are loaded by their route-table paths relative to it). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where `npm start` keeps DynamoDB Local's data (DATA_DIR overrides; tests use a temporary one). */
export const dataDir = process.env.DATA_DIR || join(repoRoot, '.data');
