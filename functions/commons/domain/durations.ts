/** Durations as settings write them: a number and a unit (`250ms`, `5s`, `30m`, `2h`, `90d`). */

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/** How a duration is written, for the sentence that refuses one. */
export const DURATION_FORMAT = 'a number and a unit (ms, s, m, h or d)';

/** `250ms`, `5s`, `30m`, `2h`, `5d` as milliseconds, or undefined when it is not one. */
export function duration(value: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  return m ? Math.round(Number(m[1]) * UNITS[m[2]!]!) : undefined;
}
