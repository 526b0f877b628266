import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (handlers are loaded by their route-table paths relative to it). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dataDir = join(repoRoot, '.data');
