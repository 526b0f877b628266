import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: handlers are found by their route-table paths relative to it (CDK, local gateway, tests). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
