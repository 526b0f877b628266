import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { CountName } from './counts';
import { METRICS_NAMESPACE, serviceName } from './service';

/**
 * Business metrics in CloudWatch's embedded metric format (Powertools Metrics): JSON lines on stdout
 * that CloudWatch turns into metrics, with no API call on the request path. Every metric carries the
 * dimensions `service` and `route` (a route name, `authorizer`, `stream-processor`,
 * `inbound-consumer` or `webhook-deliverer`); `ColdStart` carries `function_name` as well (Powertools adds it to the defaults).
 */
export type MetricName =
  | CountName
  | 'Requests'
  | 'Status2xx'
  | 'Status3xx'
  | 'Status4xx'
  | 'Status5xx'
  | 'Unavailable'
  | 'TokensAccepted'
  | 'TokensRefused'
  | 'AuthorizerFailures'
  | 'CascadeItemsRemoved'
  | 'EventsPublished'
  | 'EventsApplied'
  | 'EventsDropped'
  | 'EventsDeadLettered'
  | 'WebhookAttempts'
  | 'WebhookAttemptsFailed'
  | 'WebhookDeliveries'
  | 'WebhookDeliveriesFailed'
  | 'WebhookDeliveriesRequeued'
  | 'WebhookDeliveriesParked';

/** One Metrics per route: on Lambda a function is one route; locally every route shares the process. */
const byRoute = new Map<string, Metrics>();

function metricsOf(route: string): Metrics {
  let metrics = byRoute.get(route);
  if (!metrics) {
    metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: serviceName(), defaultDimensions: { route } });
    byRoute.set(route, metrics);
  }
  return metrics;
}

/**
 * Publishes one invocation's metrics under `route` (zero counts left out), and on the route's first
 * invocation in this instance its `ColdStart`. `metadata` rides along in the line, searchable in the
 * logs but not a dimension (the correlation id, for one).
 */
export function publishMetrics(
  route: string,
  functionName: string,
  counts: Iterable<readonly [MetricName, number]>,
  metadata: Record<string, string> = {},
): void {
  const metrics = metricsOf(route);
  metrics.captureColdStartMetric(functionName);
  let any = false;
  for (const [name, value] of counts) {
    if (value > 0) {
      metrics.addMetric(name, MetricUnit.Count, value);
      any = true;
    }
  }
  if (!any) return;
  for (const [key, value] of Object.entries(metadata)) metrics.addMetadata(key, value);
  metrics.publishStoredMetrics();
}
