import type { APIGatewayProxyResult } from 'aws-lambda';

/** Lambda's limit on a synchronous invocation's answer (6 MB), the whole proxy result as JSON. */
const LAMBDA_MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

/**
 * Why Lambda would refuse to return the function's answer (over its payload limit: API Gateway then
 * answers 502), or undefined when it returns it.
 */
export function overLambdaPayload(result: APIGatewayProxyResult): Error | undefined {
  const size = Buffer.byteLength(JSON.stringify(result));
  if (size <= LAMBDA_MAX_RESPONSE_BYTES) return undefined;
  return new Error(`The answer is ${size} bytes as JSON; Lambda refuses one over ${LAMBDA_MAX_RESPONSE_BYTES} (API Gateway: 502).`);
}
