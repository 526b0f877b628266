/**
 * How deliveries are paced: the retry schedule, the answer timeout and when a failing endpoint is
 * turned off. The defaults are the deployed service's; the WEBHOOKS_* settings shorten them for a
 * local stack and its tests (docs/webhooks.md), and are never read on AWS Lambda.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Waits before each retry: eight attempts over about 28 hours. */
const DEFAULT_RETRIES_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
const DEFAULT_TIMEOUT_MS = 10 * SECOND;
const DEFAULT_DEACTIVATE_AFTER_MS = 5 * DAY;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = DAY;
/** The longest delay SQS takes on one message; longer waits are taken in hops of it. */
export const MAX_QUEUE_DELAY_MS = 15 * MINUTE;

export interface DeliverySettings {
  retriesMs: number[];
  timeoutMs: number;
  deactivateAfterMs: number;
}

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/** `250ms`, `5s`, `30m`, `2h`, `5d` as milliseconds, or an error naming the setting and the value. */
function duration(setting: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (!m) throw new Error(`${setting}: "${value}" is not a duration; write a number and a unit (ms, s, m, h or d), e.g. 5s.`);
  return Math.round(Number(m[1]) * UNITS[m[2]!]!);
}

/** Running on AWS Lambda (the runtime sets AWS_EXECUTION_ENV): no local setting is read there. */
export const onLambda = (env: NodeJS.ProcessEnv) => env.AWS_EXECUTION_ENV?.startsWith('AWS_Lambda_') === true;

/** The settings in effect; an unreadable setting throws, naming it (`npm start` checks them at start). */
export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  const local = !onLambda(env);
  const read = (name: string) => (local && env[name] !== undefined && env[name] !== '' ? env[name] : undefined);
  const retries = read('WEBHOOKS_RETRY_SCHEDULE');
  const timeout = read('WEBHOOKS_TIMEOUT');
  const deactivate = read('WEBHOOKS_DEACTIVATE_AFTER');
  return {
    retriesMs:
      retries === undefined
        ? DEFAULT_RETRIES_MS
        : retries
            .split(',')
            .filter((part) => part.trim() !== '')
            .map((part) => duration('WEBHOOKS_RETRY_SCHEDULE', part)),
    timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : duration('WEBHOOKS_TIMEOUT', timeout),
    deactivateAfterMs: deactivate === undefined ? DEFAULT_DEACTIVATE_AFTER_MS : duration('WEBHOOKS_DEACTIVATE_AFTER', deactivate),
  };
}
