/** WORKSPACE_RATE_LIMITS, the route functions' setting of their workspace limits (workspaceRateLimits.ts), and how it is written. */
export interface Budget {
  /** Read units a second one partition of a workspace may draw. */
  read: number;
  /** Write units a second. */
  write: number;
}

const SETTING = /^rcu=(\d{1,6}),wcu=(\d{1,6})$/;
const MAX_UNITS = 100_000;

/** How WORKSPACE_RATE_LIMITS is written (lib/settings/table.ts shows it). */
export const WORKSPACE_RATE_LIMITS_ACCEPTS = `rcu=<read units>,wcu=<write units>: what one partition of a workspace may draw a second (whole numbers from 1 to ${MAX_UNITS}), e.g. rcu=2700,wcu=900`;

/** WORKSPACE_RATE_LIMITS's value, or undefined when it is not written so. */
export function readWorkspaceRateLimits(text: string): Budget | undefined {
  const [, read, write] = SETTING.exec(text) ?? [];
  const budget = { read: Number(read), write: Number(write) };
  return budget.read >= 1 && budget.read <= MAX_UNITS && budget.write >= 1 && budget.write <= MAX_UNITS ? budget : undefined;
}
