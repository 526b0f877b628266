/** The `service` every log line and metric carries: the stack sets it per stage (its name prefix). */
export function serviceName(): string {
  return process.env.POWERTOOLS_SERVICE_NAME || 'project-label-service';
}

/** The CloudWatch namespace of the service's metrics. */
export const METRICS_NAMESPACE = 'ProjectLabelService';

/**
 * The route a function serves, from its name: deployed, `<service>-<route>` (the stack names every
 * function so and sets the service to the stage prefix); locally, the route name itself.
 */
export function routeOf(functionName: string): string {
  const prefix = `${serviceName()}-`;
  return functionName.startsWith(prefix) ? functionName.slice(prefix.length) : functionName;
}
