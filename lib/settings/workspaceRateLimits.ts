import { readWorkspaceRateLimits, WORKSPACE_RATE_LIMITS_ACCEPTS } from '#domain/workspaceRateLimitsSetting';
import { Refusal } from './rules';

/** WORKSPACE_RATE_LIMITS, as the table of settings (table.ts) shows and checks it: the route functions' workspace limits. */
export const WORKSPACE_RATE_LIMITS_SETTING = {
  meaning:
    'what one partition of a workspace may draw a second before the workspace\'s requests are refused with `429` (api.md, "Rate limits"); the deployed stack sets `rcu=2700,wcu=900`, nine tenths of a partition\'s',
  unset: 'no workspace limits (DynamoDB Local never throttles; give it with DYNAMODB_PARTITION_LIMITS, scaled alike, to see them)',
  rule: { accepts: WORKSPACE_RATE_LIMITS_ACCEPTS, read: (text: string) => readWorkspaceRateLimits(text) ?? new Refusal() },
  empty: 'unset' as const,
};
