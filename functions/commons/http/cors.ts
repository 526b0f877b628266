/**
 * CORS as the API answers it: the deployed API's preflight (CDK defaultCorsPreflightOptions) and the
 * local gateway's read this one description; handlers add Access-Control-Allow-Origin to every answer.
 */
export const CORS_PREFLIGHT = {
  allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Correlation-Id'],
  exposeHeaders: ['ETag', 'Idempotent-Replayed', 'Location', 'Retry-After', 'WWW-Authenticate', 'X-Correlation-Id', 'X-Request-Id'],
  maxAgeSeconds: 3_600,
} as const;
