import { drainCounts, type CountName } from '#observability/counts';
import { logger } from '#observability/log';
import { publishMetrics, type MetricName } from '#observability/metrics';
import { sourceMapped } from '#observability/stacks';

interface BatchReport {
  /** Fields of the batch's log line. */
  fields: Record<string, unknown>;
  metrics: [MetricName, number][];
}

/**
 * Runs one batch of the stream processor, the inbound consumer or the webhook deliverer (on Lambda and under `npm start`
 * alike) and reports it: one log line (an error line with its cause when the batch fails, before the
 * error goes on to the retrying caller) and one metrics line, under `route` = the function's role.
 */
export async function observeBatch<T>(
  route: 'stream-processor' | 'inbound-consumer' | 'webhook-deliverer',
  size: number,
  counted: readonly CountName[],
  run: () => Promise<T>,
  report: (outcome: T) => BatchReport,
): Promise<T> {
  logger.refreshSampleRateCalculation();
  const started = performance.now();
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? route;
  const latency = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const outcome = await run();
    const { fields, metrics } = report(outcome);
    logger.info('batch', { route, size, ...fields, latency_ms: latency() });
    publishMetrics(route, functionName, [...metrics, ...drainCounts(counted)]);
    return outcome;
  } catch (error) {
    logger.error('batch failed', { route, size, latency_ms: latency(), error: sourceMapped(error as Error) });
    // The batch comes again and does its work again: only its retries are counted now, its work then.
    publishMetrics(
      route,
      functionName,
      drainCounts(counted).filter(([name]) => name === 'ConflictRetries'),
    );
    throw error;
  }
}
