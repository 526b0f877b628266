import { inject } from 'vitest';
import type { LocalStack } from './global-setup.ts';

/** This worker's local stack (global-setup.ts starts one per worker; VITEST_POOL_ID is 1..maxWorkers). */
export function localStack(): LocalStack {
  const stacks = inject('stacks');
  return stacks[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % stacks.length]!;
}
