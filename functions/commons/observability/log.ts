import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './service';

/**
 * The service's one logger (Powertools): JSON lines on stdout, as Lambda's JSON log format and
 * CloudWatch Logs Insights read them. Level and debug sampling come from the environment the stack
 * sets per stage (POWERTOOLS_LOG_LEVEL, POWERTOOLS_LOGGER_SAMPLE_RATE); `npm start` renders the same
 * lines readably (lib/local/logRouter.ts).
 */
// The stack sets Lambda's application log level to DEBUG, so that Lambda admits every line a function
// writes, and the level that decides to POWERTOOLS_LOG_LEVEL (per stage, with debug sampling). Powertools
// would adopt Lambda's level (AWS_LAMBDA_LOG_LEVEL) over its own and ignore sampling: when a level of
// its own is given, it is not shown Lambda's. Without one, Powertools follows Lambda's as usual.
if (process.env.POWERTOOLS_LOG_LEVEL) delete process.env.AWS_LAMBDA_LOG_LEVEL;

export const logger = new Logger({ serviceName: serviceName() });
