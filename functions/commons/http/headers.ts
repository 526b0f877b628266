import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * Headers every answer of the API carries, the functions' and the gateway's own alike: never stored
 * by a cache (answers are per token and change with every write), never content-sniffed, and the id
 * of the request it answers (the `request_id` of a problem body), for a client to quote.
 */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;
const REQUEST_ID_HEADER = 'X-Request-Id';

const answerHeaders = (requestId: string): Record<string, string> => ({ ...NO_STORE_HEADERS, [REQUEST_ID_HEADER]: requestId });

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const addHeaders = async (request: Request) => {
  if (request.response) request.response.headers = { ...request.response.headers, ...answerHeaders(request.context.awsRequestId) };
};

/** Adds the headers to the final answer (problem+json included): registered before the error handler. */
export const standardHeaders = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> => ({
  after: addHeaders,
  onError: addHeaders,
});
