import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { BEARER_HEADER, usageKeyOf, verifyToken } from '#domain/tokens';
import { observeAuthorizer } from '#http/observe';
import { toAuthorizerContext } from '#http/principal';

/**
 * TOKEN authorizer. Unknown, malformed, expired or revoked tokens are refused with "Unauthorized"
 * (API Gateway answers 401). A valid token gets a policy for the whole API, so API Gateway can
 * cache it per token across routes; handlers enforce workspace and scope from the context. The
 * token's API key (usageIdentifierKey) puts its requests under its usage plan's rate and burst.
 */
export const handler = observeAuthorizer(async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const header = event.authorizationToken ?? '';
  const principal = BEARER_HEADER.test(header) ? await verifyToken(header.slice('Bearer '.length)) : null;
  if (!principal) throw new Error('Unauthorized');
  return {
    principalId: principal.tokenId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApi(event.methodArn) }],
    },
    context: { ...toAuthorizerContext(principal) },
    // The API key whose usage plan holds the token's rate limit (the API's key source is AUTHORIZER).
    usageIdentifierKey: usageKeyOf(principal.tokenId),
  };
});

/** arn:aws:execute-api:region:account:apiId/stage/METHOD/path -> arn:...:apiId/stage/* */
function wholeApi(methodArn: string): string {
  const [prefix, stage] = methodArn.split('/');
  return `${prefix}/${stage}/*`;
}
