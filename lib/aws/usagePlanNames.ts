import type { RateLimit } from '#domain/tokens';

/**
 * Names of the usage plans that hold tokens' rate limits: one plan per (stage, rate, burst), so every
 * token of the same limits shares one. The stack creates the plan of the default limits; the token
 * CLI creates any other the first time a token needs it (lib/aws/usagePlans.ts).
 */
export function usagePlanName(restApiId: string, stage: string, limit: RateLimit): string {
  return `${usagePlanPrefix(restApiId, stage)}${limit.rate}rps-${limit.burst}burst`;
}

/** What the names of one stage's plans begin with (and no other stage's: an API id has no hyphen). */
export function usagePlanPrefix(restApiId: string, stage: string): string {
  return `pls-${restApiId}-${stage}-`;
}

const API_KEY_PREFIX = 'pls-token-';

/** The API key of one token (its value is `usageKeyOf(tokenId)`). */
export function apiKeyName(tokenId: string): string {
  return `${API_KEY_PREFIX}${tokenId}`;
}

/** The token an API key belongs to, from its name; undefined for a key that is not a token's. */
export function tokenIdOfKey(name: string | undefined): string | undefined {
  return name?.startsWith(API_KEY_PREFIX) ? name.slice(API_KEY_PREFIX.length) : undefined;
}
