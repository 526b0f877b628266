import { AsyncLocalStorage } from 'node:async_hooks';
import type { HttpRequest } from '@smithy/types';
import { db } from '#store/client';
import { CONSUMER_TABLE_ACCESS, indexKeyPatterns, onlyCounts, reaches, type TableAccess } from '#lib/tableAccess';
import { TABLE } from '#store/table';
import { batchOf } from './partitions/batches';
import { bodyText, operationOf } from './partitions/simulator';
import { consumption, type Wire } from './partitions/units';

/**
 * The deployed IAM policies, held locally: while a function runs (a route's handler, the authorizer, the
 * stream processor, the inbound consumer, the webhook deliverer), each DynamoDB call it makes must be
 * one its policy allows (lib/tableAccess.ts): the partitions it may reach, writes only where it may
 * write, index queries only where it may query them, never a Scan. A call the policy refuses fails as
 * DynamoDB refuses it (AccessDeniedException) before it is sent, so every test of the local stack runs
 * under the deployed policies. Calls made outside a function (the tools, the checker) are not held.
 */
const running = new AsyncLocalStorage<{ name: string; access: TableAccess }>();

/** Runs `work` as the function `name`, under its table access (the check is put on the shared client the first time). */
export function asFunction<T>(name: string, access: TableAccess, work: () => T): T {
  holdFunctionsToTheirTableAccess();
  return running.run({ name, access }, work);
}

/** `consume`, run as the consumer function `name` (the stream processor, the inbound consumer, the deliverer). */
export function asConsumer<A extends unknown[], R>(
  name: keyof typeof CONSUMER_TABLE_ACCESS,
  consume: (...args: A) => R,
): (...args: A) => R {
  return (...args) => asFunction(name, CONSUMER_TABLE_ACCESS[name], () => consume(...args));
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** Why the running function may not make this call; undefined when it may. */
export function refusal(access: TableAccess, operation: string, input: Wire): string | undefined {
  if (!READS.has(operation) && !WRITES.has(operation)) return `dynamodb:${operation} is not allowed`;
  const batch = batchOf(operation, input);
  const draws = batch ? batch.entries.flatMap((e) => e.draws) : (consumption(operation, input) ?? []);
  // Its counts (a workspace's load): an UpdateItem or GetItem there is allowed whatever else it may do
  // (never one that writes an index: a count carries no index keys).
  if (
    draws.every((d) => d.index === undefined) &&
    onlyCounts(
      access,
      operation,
      draws.map((d) => d.key),
    )
  )
    return undefined;
  if (WRITES.has(operation) && !access.write) return `dynamodb:${operation} is not allowed (read-only)`;
  if (access.operations && !access.operations.includes(operation)) return `dynamodb:${operation} is not among its operations`;
  if (operation === 'Query' && input.IndexName !== undefined) {
    if (!access.indexes.some((i) => TABLE.indexes[i].name === input.IndexName)) return `a query of index ${String(input.IndexName)}`;
    // The index's partition key is the query's leading key: one of the index partitions it keeps.
    const key = draws[0]?.key;
    const kept = indexKeyPatterns(access).some((p) => key?.startsWith(p.slice(0, -1)));
    return kept ? undefined : `index partition ${String(key)} is outside its dynamodb:LeadingKeys`;
  }
  // What DynamoDB writes to an index on its own (an item's index keys) is not the caller's to be allowed.
  const onTable = draws.filter((d) => d.index === undefined);
  // A call whose partition cannot be told from it is refused, not let through: IAM would judge it.
  if (onTable.length === 0) return `its partition key could not be told (dynamodb:LeadingKeys would judge it)`;
  // Read-only partitions take reads alone (a transaction's condition check is a read).
  const outside = onTable.filter((d) => !reaches(access, d.key, d.capacity));
  return outside.length ? `partition ${outside[0]!.key} is outside its dynamodb:LeadingKeys for a ${outside[0]!.capacity}` : undefined;
}

function accessDenied(name: string, operation: string, why: string): Error {
  return Object.assign(new Error(`The function ${name} is not authorized to perform dynamodb:${operation} on the table: ${why}`), {
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

let held = false;

/** Puts the check on the shared client, once. */
function holdFunctionsToTheirTableAccess(): void {
  if (held) return;
  held = true;
  db.middlewareStack.add(
    (next) => async (args) => {
      const current = running.getStore();
      if (current) {
        const request = args.request as HttpRequest;
        const operation = operationOf(request);
        const why = refusal(current.access, operation, JSON.parse(bodyText(request.body)) as Wire);
        if (why) throw accessDenied(current.name, operation, why);
      }
      return next(args);
    },
    { step: 'build', priority: 'low', name: 'localTableAccess' },
  );
}
