import { DAY, DURATION_FORMAT, duration, HOUR, MINUTE, SECOND } from '#domain/durations';

/**
 * How deliveries are paced: the retry schedule, the answer timeout and when a failing endpoint is
 * turned off. The defaults are the deployed service's; the WEBHOOKS_* settings shorten them for a
 * local stack and its tests (docs/webhooks.md), and are never read on AWS Lambda.
 */

/** Waits before each retry: eight attempts over about 28 hours. */
const DEFAULT_RETRIES_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
const DEFAULT_TIMEOUT_MS = 10 * SECOND;
const DEFAULT_DEACTIVATE_AFTER_MS = 5 * DAY;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = DAY;
/** How long an automatic attempt (or a probe) holds its delivery: past the 10 s answer time, short of SQS's redelivery of a crashed batch. */
export const ATTEMPT_HOLD_MS = 60_000;
/** The longest delay SQS takes on one message; longer waits are taken in hops of it. */
export const MAX_QUEUE_DELAY_MS = 15 * MINUTE;
/**
 * How long past due a pending delivery must be to count as lost (its message never came: one that went to
 * the dead-letter queue before its schedule was recorded, a recovery that failed between its schedule and
 * its message): far past any backlog of the retry lane, so a delivery merely waiting its turn there is
 * never queued twice. The sweeper and a recovery take such deliveries up again.
 */
export const LOST_AFTER_MS = HOUR;
/** How often the sweeper looks for them (a `sweep` message on the retry lane, deployed and under `npm start`). */
export const SWEEP_EVERY_MS = 5 * MINUTE;

export interface DeliverySettings {
  retriesMs: number[];
  timeoutMs: number;
  deactivateAfterMs: number;
}

const FORMAT = DURATION_FORMAT;

/** How one WEBHOOKS_* setting is written, and its value (undefined when it is not written so). */
export interface DeliverySetting<T> {
  accepts: string;
  parse(value: string): T | undefined;
}

/** A wait above zero. */
const positive: DeliverySetting<number> = {
  accepts: `a duration above zero, ${FORMAT}, e.g. 10s`,
  parse: (value) => {
    const ms = duration(value);
    return ms !== undefined && ms > 0 ? ms : undefined;
  },
};

/**
 * The rules of the WEBHOOKS_* settings, the one place they are written: the deliverer reads them here,
 * and `npm start` checks them at its start with the same rules (lib/settings/table.ts).
 */
export const DELIVERY_SETTINGS = {
  WEBHOOKS_RETRY_SCHEDULE: {
    accepts: `waits separated by commas, each ${FORMAT}, e.g. 1s,5s,1m`,
    parse: (value) => {
      const waits = value.split(',').map(duration);
      return waits.every((w) => w !== undefined) ? waits : undefined;
    },
  } satisfies DeliverySetting<number[]>,
  WEBHOOKS_TIMEOUT: positive,
  WEBHOOKS_DEACTIVATE_AFTER: positive,
};

/** Running on AWS Lambda (the runtime sets AWS_EXECUTION_ENV): no local setting is read there. */
export const onLambda = (env: NodeJS.ProcessEnv) => env.AWS_EXECUTION_ENV?.startsWith('AWS_Lambda_') === true;

/** The settings in effect; an unreadable setting throws, naming it (`npm start` checks them at its start). */
export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  const local = !onLambda(env);
  const read = <T>(name: keyof typeof DELIVERY_SETTINGS, fallback: T): T => {
    const value = local ? env[name] : undefined;
    if (value === undefined || value === '') return fallback;
    const setting = DELIVERY_SETTINGS[name] as DeliverySetting<T>;
    const parsed = setting.parse(value);
    if (parsed === undefined) throw new Error(`${name} is ${JSON.stringify(value)}: use ${setting.accepts}.`);
    return parsed;
  };
  return {
    retriesMs: read('WEBHOOKS_RETRY_SCHEDULE', DEFAULT_RETRIES_MS),
    timeoutMs: read('WEBHOOKS_TIMEOUT', DEFAULT_TIMEOUT_MS),
    deactivateAfterMs: read('WEBHOOKS_DEACTIVATE_AFTER', DEFAULT_DEACTIVATE_AFTER_MS),
  };
}
