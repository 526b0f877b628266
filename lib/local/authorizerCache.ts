import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { settingValue } from '#lib/settings/check';
import { type AuthorizerHandler, lambdaContext } from './lambdaEvents.ts';

/** Seconds API Gateway caches an authorizer's policy per token (the stack's authorizerCacheTtl). */
const AUTHORIZER_CACHE_SECONDS = settingValue('AUTHORIZER_CACHE_TTL_SECONDS') ?? 300;

/**
 * The authorizer as API Gateway runs it: a policy, an Allow or the Deny of a refused token, is cached
 * per Authorization header for AUTHORIZER_CACHE_SECONDS (so a revoked token works until its entry
 * expires, as deployed); a failure to answer is not cached.
 */
export function cachedAuthorizer(authorizer: () => Promise<AuthorizerHandler>) {
  const cache = new Map<string, { policy: APIGatewayAuthorizerResult; until: number }>();
  return async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const hit = cache.get(event.authorizationToken);
    if (hit && hit.until > Date.now()) return hit.policy;
    const policy = await (await authorizer())(event, lambdaContext('authorizer'));
    if (AUTHORIZER_CACHE_SECONDS > 0) cache.set(event.authorizationToken, { policy, until: Date.now() + AUTHORIZER_CACHE_SECONDS * 1000 });
    return policy;
  };
}
