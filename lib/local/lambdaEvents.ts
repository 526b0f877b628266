import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { authorizerHandler, type Route } from '#http/routes';

/**
 * What Lambda hands a function locally: the handler a route names, the invocation context, and the
 * REST proxy event API Gateway builds for a request (the local gateway, the sample events and the
 * tests' in-process invocations all build them here).
 */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

/** The `handler` export of a module named as in the route table (a path relative to `root`). */
export async function loadHandler<H>(root: string, file: string): Promise<H> {
  return (await import(pathToFileURL(join(root, file)).href)).handler as H;
}

/**
 * The functions of the route table as Lambda runs them: each loads its code on its first invocation (its
 * cold start), so a request loads only what its own function imports, and a function that fails to load
 * fails its own requests (asked again on the next), not the others'.
 */
export function lazyFunctions(root: string) {
  const loads = new Map<string, Promise<unknown>>();
  const load = <H>(file: string): Promise<H> => {
    let loading = loads.get(file);
    if (!loading) {
      loading = loadHandler<H>(root, file);
      loads.set(file, loading);
      loading.catch(() => loads.delete(file));
    }
    return loading as Promise<H>;
  };
  return {
    handler: (route: Route) => load<ProxyHandler>(route.handler),
    authorizer: () => load<AuthorizerHandler>(authorizerHandler),
  };
}
export type Functions = ReturnType<typeof lazyFunctions>;

const LOCAL_API_ID = 'local';
const LOCAL_STAGE = 'local';
const ACCOUNT = '123456789012';

export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function methodArn(method: string, path: string): string {
  return `arn:aws:execute-api:us-east-1:${ACCOUNT}:${LOCAL_API_ID}/${LOCAL_STAGE}/${method}${path}`;
}

/** The REST proxy event API Gateway builds for a request (authorizer context included). */
export function proxyEvent(input: {
  route: Route;
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string | null;
  /** The body is base64 of bytes that are not UTF-8 text. */
  isBase64Encoded?: boolean;
  authorizer: Record<string, unknown> | null;
  requestId?: string;
  /**
   * The path of the URL called, as `requestContext.path`: by default an execute-api URL's, the stage
   * first (what the sample events show); the local API, served at its root, passes the path itself.
   */
  calledPath?: string;
}): APIGatewayProxyEvent {
  // A Map, not an object literal: a parameter may be named `constructor` or `__proto__`.
  const values = new Map<string, string[]>();
  for (const [k, v] of input.query) values.set(k, [...(values.get(k) ?? []), v]);
  const multiQuery = Object.fromEntries(values);
  const query = Object.fromEntries([...values].map(([k, v]) => [k, v[v.length - 1]!]));
  const hasQuery = Object.keys(query).length > 0;
  const requestId = input.requestId ?? randomUUID();
  return {
    resource: input.route.path,
    path: input.path,
    httpMethod: input.method,
    headers: input.headers,
    multiValueHeaders: Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(input.pathParameters).length ? input.pathParameters : null,
    stageVariables: null,
    body: input.body,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: ACCOUNT,
      apiId: LOCAL_API_ID,
      authorizer: input.authorizer,
      httpMethod: input.method,
      identity: {
        sourceIp: '127.0.0.1',
        userAgent: input.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: input.calledPath ?? `/${LOCAL_STAGE}${input.path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: input.route.name,
      resourcePath: input.route.path,
      stage: LOCAL_STAGE,
    },
  };
}
