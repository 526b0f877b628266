import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './service';

/**
 * The service's one logger (Powertools): JSON lines on stdout, as Lambda's JSON log format and
 * CloudWatch Logs Insights read them. Level and debug sampling come from the environment the stack
 * sets per stage (POWERTOOLS_LOG_LEVEL, POWERTOOLS_LOGGER_SAMPLE_RATE); `npm start` renders the same
 * lines readably (lib/local/logRouter.ts).
 */
export const logger = new Logger({ serviceName: serviceName() });
