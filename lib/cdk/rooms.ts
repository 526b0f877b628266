import { NestedStack } from 'aws-cdk-lib';
import type { Route } from '#http/routes';
import { functionId, type ServiceParts } from './parts.ts';
import type { StageConfig } from './stage.ts';

/**
 * The rooms: each folder of functions/ that holds route handlers (projects, labels, webhooks, ...) is a
 * nested stack of its own, holding its routes' functions with their roles, policies, log groups and
 * invoke permissions. The root stack keeps what the rooms share (the table, the API and its methods,
 * the bus, the queues, the consumers, the alarms and the dashboard), so a new route adds five resources
 * to its room and only its method (and path) to the root: no template nears CloudFormation's limits
 * (docs/deploy.md, "How the stacks fit together"). A route's room follows from its handler's folder, so
 * adding a route never moves another function between stacks (which CloudFormation cannot do for a
 * resource with a fixed name).
 */

/** `functions/labels/create.ts` -> `labels`. */
export function roomOf(route: Pick<Route, 'handler'>): string {
  const [top, room, ...rest] = route.handler.split('/');
  if (top !== 'functions' || !room || rest.length === 0)
    throw new Error(`${route.handler}: a route's handler lives in a folder of functions/`);
  return room;
}

/** The nested stack of the route's room, made on its first route. */
export function roomFor(stack: ServiceParts, stage: StageConfig, route: Pick<Route, 'handler'>): NestedStack {
  const room = roomOf(route);
  const id = `${functionId(room)}Room`;
  const existing = stack.node.tryFindChild(id);
  if (existing instanceof NestedStack) return existing;
  return new NestedStack(stack, id, {
    description: `Project and Label Management Service (${stage.name}): the ${room} routes' functions`,
    suppressTemplateIndentation: true,
  });
}
