import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The client without the SDK's logging step. That step filters every call's input and output for the
 * log even when no logger is given and nothing is logged: about 80 µs of CPU a call (a Query of ten
 * items, measured against a local answer), and it walks every record of a large answer. Nothing here
 * reads the SDK's log: the service logs its own lines.
 */
export function withoutSdkLog<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * One DocumentClient per process, created at init in every function that names `db`, so warm invocations reuse its
 * connections (a function that only reaches it through `database()` makes it at first use).
 * Retries use the SDK's standard strategy (exponential backoff with jitter, throttling-aware),
 * bounded so that a request stays far inside API Gateway's 29 s limit.
 */
function createClient(): DynamoDBDocumentClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    maxAttempts: Number(process.env.DYNAMODB_MAX_ATTEMPTS ?? 4),
    retryMode: 'standard',
    // Deployed, DynamoDB answers in milliseconds: a call that takes seconds has failed. A local DynamoDB
    // Local shares its machine, so local entry points allow it longer (lib/local/database.ts).
    requestHandler: {
      connectionTimeout: Number(process.env.DYNAMODB_CONNECT_TIMEOUT_MS ?? 1_000),
      requestTimeout: Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? 5_000),
    },
    ...(endpoint ? { endpoint } : {}),
  });
  return DynamoDBDocumentClient.from(withoutSdkLog(client), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

let shared: DynamoDBDocumentClient | undefined;

/**
 * The one client, made at its first use where a function's code reaches the table only through a path it may never
 * take: the workspace limits count a route that draws nothing (GET /webhook-event-types) without it, so that function
 * makes no client at all.
 */
export function database(): DynamoDBDocumentClient {
  return (shared ??= createClient());
}

/** The same client, made at init in every function that names it (a function that does not, leaves it out). */
export const db = /* @__PURE__ */ database();
