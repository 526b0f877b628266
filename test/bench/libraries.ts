import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import * as z from 'zod/mini';
import { handler as floor } from './floor.ts';

/**
 * The libraries' floor for cold init: the floor (the DynamoDB client and one call) with what the design asks of every
 * route function and nothing of the project's own: a Powertools Logger and Metrics, middy with its HTTP middlewares, and
 * zod/mini with a small input schema built as the module loads (a page's limit and cursor, a slug). Measured beside the
 * functions (section 2): what a function adds beyond it is the project's own code and schemas.
 */
const logger = new Logger({ serviceName: 'libraries' });
// Made at the first answer, as the functions make theirs (functions/commons/observability/metrics.ts).
let metrics: Metrics | undefined;
const input = z.object({
  slug: z.string().check(z.regex(/^[a-z0-9-]{1,64}$/)),
  limit: z.optional(z.pipe(z.string().check(z.regex(/^\d{1,6}$/)), z.transform(Number))),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
});

export const handler = middy(async (event: { slug?: string }) => {
  input.parse(event);
  logger.info('answered');
  metrics ??= new Metrics({ namespace: 'libraries', serviceName: 'libraries' });
  metrics.addMetric('Answers', MetricUnit.Count, 1);
  return floor(event);
})
  .use(httpCors())
  .use(httpHeaderNormalizer())
  .use(httpJsonBodyParser({ disableContentTypeError: true }));
