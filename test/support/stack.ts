import { inject } from 'vitest';

/** What a test worker reaches: its own local API, the run's DynamoDB Local, and the files that API writes. */
export interface LocalStack {
  apiUrl: string;
  dynamodbPort: number;
  eventsFile: string;
  streamStatusFile: string;
  inboundDeadLetterFile: string;
  logFile: string;
  metricsFile: string;
}

let own: LocalStack | undefined;

/**
 * Whether each test file starts a local stack of its own (recording what each file executes, against the
 * run's own APIs): env.ts starts it, and the global setup then starts none for the workers.
 */
export const stackPerFile = () => Boolean(process.env.TEST_MAP_RECORD) && !process.env.API_URL;

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
