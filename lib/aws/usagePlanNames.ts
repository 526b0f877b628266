import type { RateLimit } from '#domain/tokens';

/**
 * Names of the usage plans that hold tokens' rate limits: one plan per (stage, rate, burst), so every
 * token of the same limits shares one. The stack creates the plan of the default limits; the token
 * CLI creates any other the first time a token needs it (lib/aws/usagePlans.ts).
 */
export function usagePlanName(restApiId: string, stage: string, limit: RateLimit): string {
  return `pls-${restApiId}-${stage}-${limit.rate}rps-${limit.burst}burst`;
}

/** The API key of one token (its value is `usageKeyOf(tokenId)`). */
export function apiKeyName(tokenId: string): string {
  return `pls-token-${tokenId}`;
}
