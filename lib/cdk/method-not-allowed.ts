import { AuthorizationType, MockIntegration, PassthroughBehavior, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { allowedMethods, methodNotAllowedDetail } from '#http/allowedMethods';
import { NO_STORE_HEADERS } from '#http/headers';
import { problemBody } from '#http/problem';
import type { Route } from '#http/routes';
import { gatewayAllowOrigin } from './api.ts';

/**
 * 405 with `Allow` for a path a route serves, asked with a method none of its routes takes (PATCH,
 * HEAD, ...): an `ANY` method on each such resource, which API Gateway picks only when the resource has
 * no method of the request's own, integrated with a mock (no function, no authorizer, no API key: it
 * answers the same to everyone and costs no invocation). Its body is the service's problem+json,
 * `$context` filling in the method, the path's template and the request id, as the local gateway
 * answers it (lib/local/gatewayAnswers.ts). Another Content-Type than JSON with a body meets the mock's
 * one request template and is refused 415 first (PassthroughBehavior NEVER). A path no route serves
 * (and the parents that only lead to one) keeps API Gateway's 404.
 */
export const NOT_ALLOWED_METHOD = 'ANY';

export function addMethodNotAllowed(api: RestApi, table: readonly Route[], corsOrigins: string[]): void {
  const headers: Record<string, string> = { 'Access-Control-Allow-Origin': gatewayAllowOrigin(corsOrigins), ...NO_STORE_HEADERS };
  for (const path of new Set(table.map((route) => route.path))) {
    const allowed = allowedMethods(path, table);
    const answer = { ...headers, 'Content-Type': 'application/problem+json', Allow: allowed.join(', ') };
    const detail = methodNotAllowedDetail('$context.httpMethod', '$context.resourcePath', allowed);
    const integration = new MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 405}' },
      passthroughBehavior: PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: '405',
          responseParameters: Object.fromEntries(Object.entries(answer).map(([k, v]) => [`method.response.header.${k}`, `'${v}'`])),
          responseTemplates: { 'application/json': problemBody({ code: 'method_not_allowed', detail }, '$context.requestId') },
        },
      ],
    });
    api.root.resourceForPath(path).addMethod(NOT_ALLOWED_METHOD, integration, {
      // As CDK's own CORS preflight: no authorizer, whatever the API's default.
      authorizer: { authorizerId: '', authorizationType: AuthorizationType.NONE },
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      methodResponses: [
        {
          statusCode: '405',
          responseParameters: Object.fromEntries(Object.keys(answer).map((k) => [`method.response.header.${k}`, true])),
        },
      ],
    });
  }
}
