import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationFailed, type Refusal } from '#domain/errors';

/**
 * The query string as the routes' schemas read it: one text per parameter, whatever the client
 * repeated. A list parameter takes every repetition, in order, as its comma form
 * (`task_uuids=a&task_uuids=b` is `task_uuids=a,b`); any other parameter given more than once with
 * different values is refused (422 naming it), never silently taken from one of them. API Gateway
 * (REST) and the local API alike pass every value in `multiValueQueryStringParameters`; an event
 * without it (a hand-written sample) is read from `queryStringParameters` alone.
 */

/** The query parameters that take a list: repeated, or separated by commas, or both. */
export const LIST_PARAMETERS: ReadonlySet<string> = new Set(['task_uuids', 'categories', 'type']);

const names = [...LIST_PARAMETERS];
const LISTED = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

type QueryEvent = Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>;

const times = (n: number) => (n === 2 ? 'twice' : `${n} times`);

/** One text per parameter (a Map keeps names such as `__proto__` as plain names); a 422 for a single-valued one repeated differently. */
export function queryOf(event: QueryEvent): Record<string, string> {
  const query = new Map(Object.entries(event.queryStringParameters ?? {}) as [string, string][]);
  const refusals: Refusal[] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (!values?.length) continue;
    if (LIST_PARAMETERS.has(name)) {
      query.set(name, values.join(','));
      continue;
    }
    const distinct = [...new Set(values)];
    if (distinct.length > 1) {
      const rule = `is given ${times(values.length)} with different values; send it once (only ${LISTED} take several)`;
      refusals.push({ field: name, message: rule, value: values });
    } else query.set(name, distinct[0]!);
  }
  if (refusals.length) throw new ValidationFailed(refusals);
  return Object.fromEntries(query);
}
