import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { MetricName } from '#observability/metrics';
import { METRICS_NAMESPACE } from '#observability/service';

/** Most graphs: five-minute points, as the alarms (and the SEARCH expressions below) use. */
export const PERIOD = Duration.minutes(5);

/**
 * The service's own metrics (functions/commons/observability/metrics.ts): every one a Count with the
 * dimensions `service` (the stage prefix) and `route` (a route name, or `authorizer`, `stream-processor`,
 * `inbound-consumer`, `webhook-deliverer`); `ColdStart` adds `function_name` (its search below takes any dimension set).
 */
type ServiceMetric = MetricName;

/**
 * The service's EMF metrics as SEARCH expressions over this stage's `service`: they find every route (or
 * function) that has reported, so the dashboard needs no list of routes and shows new ones by itself.
 */
export function serviceMetrics(service: string) {
  const seconds = PERIOD.toSeconds();
  const search = (dimensions: string, metricName: string) =>
    `SEARCH('{${METRICS_NAMESPACE},${dimensions},service} MetricName="${metricName}" service="${service}"', 'Sum', ${seconds})`;
  return {
    /** One line per route. */
    byRoute: (metric: ServiceMetric) =>
      new MathExpression({ expression: search('route', metric), label: "${PROP('Dim.route')}", period: PERIOD }),
    /** One line: the sum over every route. */
    total: (metric: ServiceMetric, label: string) =>
      new MathExpression({ expression: `SUM(${search('route', metric)})`, label, period: PERIOD }),
    /** One line per function; no dimension schema, so `ColdStart` is found with or without a `route` dimension. */
    coldStarts: () =>
      new MathExpression({
        expression: `SEARCH('Namespace="${METRICS_NAMESPACE}" MetricName="ColdStart" service="${service}"', 'Sum', ${seconds})`,
        label: "${PROP('Dim.function_name')}",
        period: PERIOD,
      }),
  };
}
