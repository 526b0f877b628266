import { Tracer } from '@aws-lambda-powertools/tracer';
import { db } from '#store/client';

/**
 * get-project as it would ship with Powertools Tracer instrumenting the DynamoDB client: built and
 * measured by the benchmark (section 2) to show what tracing the client would cost a cold start.
 * Not deployed: the functions keep X-Ray active without it (docs/operations.md, "Traces").
 */
new Tracer().captureAWSv3Client(db);

export { handler } from '../../functions/projects/get.ts';
