import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { checkToken, claimedTokenId, usageKeyOf } from '#domain/tokens';
import { observeAuthorizer } from '#http/observe';
import { toAuthorizerContext } from '#http/principal';
import { headerRefusal, REFUSAL_CONTEXT_KEY, refusalDetail } from '#wire/tokenRefusals';

/**
 * TOKEN authorizer. A valid token gets a policy for the whole API, so API Gateway can cache it per
 * token across routes; handlers enforce workspace and scope from the context. The token's API key
 * (usageIdentifierKey) puts its requests under its usage plan's rate and burst.
 *
 * An unknown, revoked or expired token gets a Deny for the whole API whose context says which
 * (wire/tokenRefusals.ts): API Gateway answers its ACCESS_DENIED response, a 401 that reads the
 * sentence from the context (lib/cdk/gateway-responses.ts), and caches the Deny per token as it caches
 * an Allow, so a refused token costs no more invocations than one thrown out with "Unauthorized".
 */
export const handler = observeAuthorizer(async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const header = event.authorizationToken ?? '';
  // API Gateway's identity validation lets only a token's form through; anything else is refused here too.
  const malformed = headerRefusal(header);
  const checked = malformed ? { refused: malformed } : await checkToken(header.slice('Bearer '.length));
  if (!('principal' in checked)) {
    const detail = refusalDetail(checked.refused, 'expiredAt' in checked ? checked.expiredAt : undefined);
    return {
      principalId: claimedTokenId(header) ?? 'anonymous',
      policyDocument: policy('Deny', event.methodArn),
      context: { [REFUSAL_CONTEXT_KEY]: detail },
    };
  }
  const { principal } = checked;
  return {
    principalId: principal.tokenId,
    policyDocument: policy('Allow', event.methodArn),
    context: { ...toAuthorizerContext(principal) },
    // The API key whose usage plan holds the token's rate limit (the API's key source is AUTHORIZER).
    usageIdentifierKey: usageKeyOf(principal.tokenId),
  };
});

function policy(effect: 'Allow' | 'Deny', methodArn: string): APIGatewayAuthorizerResult['policyDocument'] {
  return { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: wholeApi(methodArn) }] };
}

/** arn:aws:execute-api:region:account:apiId/stage/METHOD/path -> arn:...:apiId/stage/* */
function wholeApi(methodArn: string): string {
  const [prefix, stage] = methodArn.split('/');
  return `${prefix}/${stage}/*`;
}
