import { inject } from 'vitest';
import type { LocalStack } from './global-setup.ts';

let own: LocalStack | undefined;

/** This file's local stack instead of its worker's (when recording what each file executes: test/support/env.ts). */
export function useOwnStack(stack: LocalStack) {
  own = stack;
}

/** This worker's local stack (global-setup.ts starts one per worker; VITEST_POOL_ID is 1..maxWorkers). */
export function localStack(): LocalStack {
  if (own) return own;
  const stacks = inject('stacks');
  return stacks[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % stacks.length]!;
}
